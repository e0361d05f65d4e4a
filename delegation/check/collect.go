package check

import "github.com/proselang/prose/delegation/syntax"

// collectNulls warns of the iterations of a collecting body (a loop whose
// list is kept, a pipeline stage) that give null with no value written
// for them (semantics.md 9): one ended by `continue`, which puts null in
// the list where the item was most often meant to be left out, and one
// whose last statement is an if (or a try) with a value on some
// branches only, `if x > 0: x` with no else. Decided: a warning, as the
// null is the rule's; `return null` says it was meant.
// A `parallel first` loop keeps the one iteration that returns, not a
// list, and in a stage's body a continue is an error of its own: stage
// is set for a pipeline stage, and a first loop is not looked at.
func (c *checker) collectNulls(body []syntax.Stmt, stage *syntax.PipeExpr) {
	if stage == nil {
		c.collectContinues(body)
	}
	if len(body) == 0 || !givesValue(body) || valueOnEveryPath(body) {
		return
	}
	list, fix := "the list the loop collects", "to leave such items out, filter the list (| filter:) or append the kept ones to a list; else end every branch with a value (return null where null is meant)"
	if stage != nil && stage.Op == syntax.PipeFilter {
		list, fix = "| filter, which refuses it at run time", "end every branch with true or false"
	} else if stage != nil {
		list = "the list | " + stageText(stage) + " makes"
	}
	switch s := body[len(body)-1].(type) {
	case *syntax.IfStmt:
		c.diags.Warnf(c.f, s.If, CodeCollectNull, "an item that takes no branch of this if that gives a value gives null to %s: %s", list, fix)
	case *syntax.TryStmt:
		c.diags.Warnf(c.f, s.Try, CodeCollectNull, "an item whose try or catch gives no value gives null to %s: end both with a value (return null where null is meant)", list)
	}
}

// collectContinues warns of each continue of the collecting body itself
// (not of a loop nested in it), looking into if, try and choice
// branches.
func (c *checker) collectContinues(body []syntax.Stmt) {
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.BranchStmt:
			if !s.Break {
				c.diags.Warnf(c.f, s.Keyword, CodeCollectNull, "continue gives null to the list the loop collects, in this item's place, not leaving it out: to leave items out, filter the list (| filter:) or append the kept ones to a list; write return null where null is meant")
			}
		case *syntax.IfStmt:
			c.collectContinues(s.Then)
			c.collectContinues(s.Else)
		case *syntax.TryStmt:
			c.collectContinues(s.Body)
			c.collectContinues(s.Catch)
			c.collectContinues(s.Finally)
		case *syntax.ChoiceStmt:
			for _, o := range s.Options {
				c.collectContinues(o.Body)
			}
		}
	}
}
