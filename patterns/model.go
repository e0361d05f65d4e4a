package patterns

import (
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/patterns/bind"
	"github.com/proselang/prose/spec"
)

// needsModel refuses, before anything runs, a run without a model whose
// Delegation certainly reaches a condition that only a model can decide
// (judge.NeedAlways, given the config and inputs). Conditions that the
// run's data may settle (structured verdicts) are left to run time, where
// the deterministic judge reports them with their position if the data
// does not decide.
//
// "Certainly reaches" is judged conservatively: statements in sequence,
// loop bodies, try bodies and parallel branches; not the branches of an
// if, a catch, or the body of a loop while/until.
func needsModel(sp *spec.Spec, inst *bind.Instance, hint string) error {
	if hint == "" {
		hint = DefaultModelHint
	}
	known := func(path string) (delegation.Value, bool) { return inst.Lookup(path) }
	var found *syntax.NaturalCond
	reached(sp.Delegation.Program.Body, func(c *syntax.NaturalCond) {
		if found == nil && judge.NeedsModel(c, known) == judge.NeedAlways {
			found = c
		}
	})
	if found == nil {
		return nil
	}
	pos := sp.File.Position(found.TextPos)
	return bind.Usagef("%s: condition %q needs a model to judge, and none is configured (found before the run started): %s", pos, found.Text, hint)
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
