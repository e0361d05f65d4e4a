package check

import (
	"fmt"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// CodePipeNoValue: a pipeline stage whose body gives no value for any
// item (no return, no value-producing statement).
const CodePipeNoValue = "check/pipe-no-value"

// CodePipeReturn: a return in a pipeline stage's body, other than its
// last statement, which ends only the item (rule 9b) where an author may
// have meant to end the run.
const CodePipeReturn = "check/pipe-return"

// pipe checks one pipeline stage (semantics.md 9b-9e): its input, which
// must be a list where its shape is known; its body, checked as the body
// of a parallel loop is (a scope of its own per item, where an outer
// name is not assigned), with the item and reduce's accumulator bound
// there and read-only; and that the body can give a value.
func (c *checker) pipe(e *syntax.PipeExpr) {
	in := e.Input()
	c.expr(in, false)
	op := stageText(e)
	if sh := c.shapeOf(in); sh != nil && sh.kind != kUnknown && sh.kind != kNull && sh.kind != kList {
		what := pathOf(in)
		if what == "" {
			what = "its input"
		}
		c.diags.Errorf(c.f, e.OpPos, CodeTypeMismatch, "| %s cannot run over %s: it is %s, not a list, so a run stops there: give the pipeline a list", op, what, describeShape(sh))
	}
	if !givesValue(e.Body()) {
		c.diags.Warnf(c.f, e.OpPos, CodePipeNoValue, "the body of | %s gives no value for any item (no return, no value on a line of its own): end it with the item's value, an expression or a call, or return it", op)
	}
	if old := c.names[e.Item().Name]; e.Acc == nil && old != nil && !(old.kind == kindLoopVar && old.constant) {
		// map's, pmap's and filter's item is bound by no name the author
		// wrote: a body that reads it may mean the name bound outside
		c.diags.Warnf(c.f, e.OpPos, CodeRedeclared, "| %s names each item item, which hides %s (line %d) in its body: rename that one to read it there",
			op, quote(e.Item().Name), c.line(old.pos))
	}
	if e.Acc == nil {
		c.collectNulls(e.Body(), e)
	}
	outerLevel, outerLoops, outerStage := c.pipeLevel, c.pipeLoops, c.stage
	c.pipeLevel, c.pipeLoops, c.stage = c.level+1, c.loops+1, e
	c.loopBody(true, true, func() {
		c.forgetAssigned(e.Body())
		if e.Acc != nil {
			c.bindVar(e.Acc, nil)
			c.names[e.Acc.Name].constant = true // pipeVarWrite
		}
		c.bindVar(e.Item(), in)
		c.names[e.Item().Name].constant = true
		c.retStage = e
	}, e.Body(), func() { c.stageValue(e) })
	c.pipeLevel, c.pipeLoops, c.stage = outerLevel, outerLoops, outerStage
}

// stageText is a stage's operation as written.
func stageText(e *syntax.PipeExpr) string {
	if e.Acc != nil {
		return fmt.Sprintf("reduce(%s, %s)", e.Acc.Name, e.Item().Name)
	}
	return e.Op.String()
}

// givesValue reports whether a stage's body can give a value (rule 9): a
// return anywhere in it outside a nested stage, or a value-producing
// statement at its level or in the branches of an if, a try or a choice
// there.
func givesValue(body []syntax.Stmt) bool {
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.ExprStmt:
			return true
		case *syntax.IfStmt:
			if givesValue(s.Then) || givesValue(s.Else) {
				return true
			}
		case *syntax.TryStmt:
			if givesValue(s.Body) || givesValue(s.Catch) {
				return true
			}
		case *syntax.ChoiceStmt:
			// the picked option's value is the item's, as an if's
			// branch's is (semantics.md 40)
			for _, o := range s.Options {
				if givesValue(o.Body) {
					return true
				}
			}
		}
		found := false
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ReturnStmt:
				found = true
			case *syntax.PipeExpr:
				return false
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// bodyWord names the body whose scope an outer write leaves.
func (c *checker) bodyWord() string {
	if c.pipeLevel > 0 && c.pipeLevel == c.level {
		return "pipeline stage's body"
	}
	return "parallel body"
}

// raceWord says why such a write is refused.
func (c *checker) raceWord() string {
	if c.pipeLevel > 0 && c.pipeLevel == c.level {
		return "each item's body has a scope of its own, and pmap runs them at once"
	}
	return "concurrent iterations would race"
}

// pipeVar says where a pipeline binds name, when one does: the item or
// a reduce name read outside its stage's body (the undefined name's
// message), "" otherwise.
func (c *checker) pipeVar(name string) string {
	if st := c.stage; name == "item" && st != nil && st.Acc != nil {
		// map's and filter's item, read in a reduce body that names its own
		return fmt.Sprintf("the body of | %s at line %d reads the item as %s: a reduce names its accumulator and its item", stageText(st), c.line(st.OpPos), st.Item().Name)
	}
	if c.prog == nil {
		return ""
	}
	var at *syntax.PipeExpr
	syntax.Walk(c.prog, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.PipeExpr); ok && at == nil {
			if p.Item().Name == name || p.Acc != nil && p.Acc.Name == name {
				at = p
			}
		}
		return at == nil
	})
	if at == nil {
		return ""
	}
	return fmt.Sprintf("%s is the pipeline variable of the | %s at line %d, which only its body reads: use the pipeline's value (let ys = xs | map: ...), or write a for loop where the items are needed after it", quote(name), stageText(at), c.line(at.OpPos))
}

// pipeVarWrite reports a let or an assignment of name, bound to b, when
// b is a pipeline variable (a loop variable only a stage makes
// read-only), and says whether it was one.
func (c *checker) pipeVarWrite(b *binding, name string, pos diag.Pos) bool {
	if b.kind != kindLoopVar || !b.constant {
		return false
	}
	c.diags.Errorf(c.f, pos, CodeConstAssign,
		"%s is the pipeline variable of the stage at line %d, read-only in its body: bind the new value to another name (let %s = ...) and give it as the body's value",
		quote(name), c.line(b.pos), newName(name))
	return true
}

// pipeReturn warns of a return that ends an item of the stage st (rule
// 9b): where a return stands in a for loop's body it ends the run, so an
// early `if bad: return X` in a stage's body reads as the end of the
// Execution while the stage gives X as this item's value and goes on
// with the next item. Decided: the body's last statement is not warned
// of (nothing follows it there, and return X means X either way).
func (c *checker) pipeReturn(s *syntax.ReturnStmt, st *syntax.PipeExpr) {
	if body := st.Body(); len(body) > 0 && body[len(body)-1] == syntax.Stmt(s) {
		return
	}
	op := stageText(st)
	c.diags.Warnf(c.f, s.Pos(), CodePipeReturn, "return in the body of | %s ends only this item, whose value it gives, and the stage goes on with the next item: "+
		"to end the Execution, loop with for %s in ...: (where return ends the run) or test the stage's result after it; to give the item's value, write it without return as the value of an if/else on the body's last line",
		op, st.Item().Name)
}

// stageValue records what is known of the value of the stage e (read by
// shapeOf): for map and pmap the shape of every item they give, for
// reduce the shape of what it gives. It runs when the body is checked,
// its names still bound. Only a body whose value is always its last
// statement's (no return before it) says anything, and only where the
// input's items have a known shape: that statement's shape is taken with
// the item of that shape, and, for reduce, with the accumulator of it
// too. Decided: a reduce's value is known only when that gives the
// items' kind again; then every step, the first item's (a list of one
// item gives it) and each body's, has that shape, so the value has it.
// Otherwise (the body makes text of numbers, the items are unknown) it
// is unknown and nothing is reported of it.
func (c *checker) stageValue(e *syntax.PipeExpr) {
	if e.Op == syntax.PipeFilter {
		return
	}
	var elem *valueShape
	if in := c.shapeOf(e.Input()); in != nil && in.kind == kList {
		elem = in.elem
	}
	last := lastValue(e.Body())
	if last == nil || e.Acc != nil && elem == nil {
		return
	}
	item := c.names[e.Item().Name]
	if item == nil || item.kind != kindLoopVar {
		return // the body bound a name of its own over it (an error)
	}
	restore := item.shape
	item.shape = elem
	defer func() { item.shape = restore }()
	if e.Acc != nil {
		acc := c.names[e.Acc.Name]
		if acc == nil || acc.kind != kindLoopVar {
			return
		}
		restore := acc.shape
		acc.shape = elem
		defer func() { acc.shape = restore }()
	}
	v := unmarked(c.shapeOf(last))
	if v == nil || v.kind == kUnknown {
		return
	}
	if e.Acc != nil {
		if v.kind != elem.kind {
			return
		}
		if v = join(elem, v); v == nil {
			return
		}
	}
	if c.stageShapes == nil {
		c.stageShapes = map[*syntax.PipeExpr]*valueShape{}
	}
	c.stageShapes[e] = v
}

// lastValue is the expression whose value a body always gives, its last
// statement's (a value on a line of its own, or a return's) when no
// other return stands in it; nil otherwise.
func lastValue(body []syntax.Stmt) syntax.Expr {
	if len(body) == 0 {
		return nil
	}
	for _, s := range body[:len(body)-1] {
		ret := false
		syntax.Walk(s, func(n syntax.Node) bool {
			if _, ok := n.(*syntax.ReturnStmt); ok {
				ret = true
			}
			return !ret
		})
		if ret {
			return nil
		}
	}
	switch s := body[len(body)-1].(type) {
	case *syntax.ExprStmt:
		return s.X
	case *syntax.ReturnStmt:
		return s.Value
	}
	return nil
}
