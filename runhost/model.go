package runhost

import (
	"fmt"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// modelProblems are the problems of a run without a model whose program
// certainly reaches conditions that only a model can decide
// (judge.NeedAlways, given the config and inputs; known may be nil when
// they could not be bound), one per condition. Conditions that the run's
// data may settle (structured verdicts, claim forms over a name's value)
// are left to run time, where the deterministic judge reports them with
// their position if the data does not decide.
//
// "Certainly reaches" is judged conservatively: statements in sequence,
// the conditions of if and loop while/until, loop bodies, try bodies and
// parallel branches; not the branches of an if, a catch, or the body of a
// loop while/until.
//
// A condition the checker found to mention no bound name
// (check/condition-no-names among diags: "if the build passed:") has no
// data a deterministic judge could read, so it needs the model whatever
// the run brings; it is reported before the run like one NeedAlways,
// not when it is reached after the calls before it have run.
func modelProblems(sp *spec.Spec, prog *syntax.Program, known func(string) (delegation.Value, bool), hint string, diags diag.List) []string {
	if prog == nil || sp.File == nil {
		return nil
	}
	noNames := map[diag.Position]bool{}
	for _, d := range diags {
		if d.Code == check.CodeConditionNoNames {
			noNames[d.Position] = true
		}
	}
	if hint == "" {
		hint = DefaultModelHint
	}
	choiceHint := hint
	if hint == DefaultModelHint {
		choiceHint = choiceModelHint // no structured verdict picks an option
	}
	var out []string
	reached(prog.Body, func(c *syntax.NaturalCond) {
		if c.Choice {
			out = append(out, fmt.Sprintf("%s: choice %q needs a model to pick an option, and none is configured (found before the run started): %s",
				sp.File.Position(c.TextPos), c.Text, choiceHint))
			return
		}
		if noNames[sp.File.Position(c.TextPos)] || judge.NeedsModel(c, known) == judge.NeedAlways {
			out = append(out, fmt.Sprintf("%s: condition %q needs a model to judge, and none is configured (found before the run started): %s",
				sp.File.Position(c.TextPos), c.Text, hint))
		}
	})
	return out
}

// instanceLookup is inst.Lookup, or nil without an instance.
func instanceLookup(inst *bind.Instance) func(string) (delegation.Value, bool) {
	if inst == nil {
		return nil
	}
	return inst.Lookup
}

// reached calls fn for every natural-language condition that a run of
// stmts certainly evaluates.
func reached(stmts []syntax.Stmt, fn func(*syntax.NaturalCond)) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *syntax.LetStmt:
			reachedExpr(s.Value, fn)
		case *syntax.ExprStmt:
			reachedExpr(s.X, fn)
		case *syntax.AssignStmt:
			reachedExpr(s.Value, fn)
		case *syntax.IfStmt:
			condReached(s.Cond, fn)
		case *syntax.WhileStmt:
			condReached(s.Cond, fn)
		case *syntax.ChoiceStmt:
			fn(s.Criteria)
		case *syntax.ParallelStmt:
			reached(s.Branches, fn)
		case *syntax.TryStmt:
			reached(s.Body, fn)
			reached(s.Finally, fn)
		}
	}
}

func reachedExpr(x syntax.Expr, fn func(*syntax.NaturalCond)) {
	switch x := x.(type) {
	case *syntax.ForExpr:
		reached(x.Body, fn)
	case *syntax.RepeatExpr:
		reached(x.Body, fn)
	case *syntax.DoExpr:
		reached(x.Body, fn)
	}
}

// condReached reports the natural-language parts of a condition that are
// always evaluated: the condition itself, or the left operand of and/or.
func condReached(x syntax.Expr, fn func(*syntax.NaturalCond)) {
	switch x := x.(type) {
	case *syntax.NaturalCond:
		fn(x)
	case *syntax.UnaryExpr:
		condReached(x.X, fn)
	case *syntax.BinaryExpr:
		condReached(x.X, fn)
	}
}

// choiceModelHint is the advice given when a choice needs a model and
// none is configured: no structured verdict picks an option.
const choiceModelHint = "set --model (or PROSE_MODEL) with OPENAI_API_KEY and, for a local or other provider, OPENAI_BASE_URL; " +
	"or write if/elif/else over conditions the data decides"

// CodeMayNeedModel is the warning, before a run without a model, for a
// condition only a model can judge that the run may reach (in a branch,
// a catch, a loop while body, or a ## node's Execution): the run starts,
// and fails there if it gets there.
const CodeMayNeedModel = "run/may-need-model"

// modelWarnings warns of the conditions of sp's programs (its own
// Delegation or Execution, and its ## nodes' Executions) that only a
// model can judge and that modelProblems did not report because the run
// may not reach them.
func modelWarnings(sp *spec.Spec, prog *syntax.Program, known func(string) (delegation.Value, bool)) diag.List {
	var out diag.List
	if sp == nil || sp.File == nil {
		return nil
	}
	sure := map[*syntax.NaturalCond]bool{}
	if prog != nil {
		reached(prog.Body, func(c *syntax.NaturalCond) { sure[c] = true })
	}
	progs := []*syntax.Program{prog}
	for _, n := range sp.Nodes {
		if b := n.Body(); b != nil && n.Execution != nil {
			progs = append(progs, b.Program)
		}
	}
	for _, p := range progs {
		if p == nil {
			continue
		}
		syntax.Walk(p, func(x syntax.Node) bool {
			c, ok := x.(*syntax.NaturalCond)
			if ok && !sure[c] && c.Choice {
				out.Warnf(sp.File, c.TextPos, CodeMayNeedModel,
					"choice %q needs a model to pick an option, and none is configured: the run fails here if it reaches it (configure a model)", c.Text)
			} else if ok && !sure[c] && judge.NeedsModel(c, known) == judge.NeedAlways {
				out.Warnf(sp.File, c.TextPos, CodeMayNeedModel,
					"condition %q needs a model to judge, and none is configured: the run fails here if it reaches it (configure a model, or make the service return a structured verdict)", c.Text)
			}
			return true
		})
	}
	return out
}
