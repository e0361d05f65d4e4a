package delegation

import (
	"context"
	"errors"
	"slices"

	"github.com/proselang/prose/delegation/syntax"
)

// Refusal runs, before any run, what a program's own checks of its
// configuration (`throw usage`, semantics.md 31a) say of the values
// known, and returns the usage error they raise, or nil.
//
// Only what can be known without a run is run: the top-level statements
// up to the first call, gate, judgment or concurrent loop, and of those
// only the ones that read nothing but the known names and names bound
// before them there. A check that reads anything else (an input, which
// only a call gives) is left to the run. Stmt is the top-level statement
// that refused.
func Refusal(prog *syntax.Program, known map[string]Value) (e *Error, stmt syntax.Stmt) {
	if prog == nil || prog.Frame == nil || len(known) == 0 {
		return nil, nil
	}
	bound := map[string]bool{}
	for k := range known {
		bound[k] = true
	}
	var stmts []syntax.Stmt
	usage := false
	for _, st := range prog.Body {
		if !pureStmt(st) {
			break
		}
		names, locals := stmtNames(st)
		ok := true
		for _, n := range names {
			if !bound[n] && !locals[n] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if l, isLet := st.(*syntax.LetStmt); isLet {
			bound[l.Name.Name] = true
		}
		stmts = append(stmts, st)
		usage = usage || throwsUsage(st)
	}
	if !usage {
		return nil, nil
	}
	p := *prog
	p.Body = stmts
	_, err := Run(context.Background(), &p, known, &Host{MaxSteps: 10000})
	if !errors.As(err, &e) || e.Kind != KindUsage {
		return nil, nil
	}
	for _, st := range stmts {
		if prog.File.Position(st.Pos()).Line > e.Pos.Line {
			break
		}
		stmt = st
	}
	return e, stmt
}

// pureStmt reports whether st can run without a service, a judge or a
// person, and in one thread: no call, gate or natural-language condition,
// and no parallel or unbounded loop.
func pureStmt(st syntax.Stmt) bool {
	ok := true
	syntax.Walk(st, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.CallExpr, *syntax.GateExpr, *syntax.NaturalCond, *syntax.ParallelStmt, *syntax.RepeatExpr, *syntax.WhileStmt, *syntax.DoCallExpr:
			ok = false // (a named block's body is not walked here)
		case *syntax.ForExpr:
			ok = ok && !x.Parallel
		}
		return ok
	})
	return ok
}

// stmtNames lists the names st reads, and the names it binds inside
// itself (a loop's variables, its lets).
func stmtNames(st syntax.Stmt) (names []string, locals map[string]bool) {
	locals = map[string]bool{}
	syntax.Walk(st, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr:
			locals[x.Var.Name] = true
			if x.Index != nil {
				locals[x.Index.Name] = true
			}
		case *syntax.LetStmt:
			locals[x.Name.Name] = true
		case *syntax.PipeExpr:
			if x.Acc != nil {
				locals[x.Acc.Name] = true // its item is its loop's
			}
		case *syntax.Ident:
			names = append(names, x.Name)
		}
		return true
	})
	return names, locals
}

// ReadNames lists the names st reads that it does not bind itself, each
// once, in the order first read.
func ReadNames(st syntax.Stmt) []string {
	names, locals := stmtNames(st)
	var out []string
	for _, n := range names {
		if !locals[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// throwsUsage reports whether st holds a `throw usage`.
func throwsUsage(st syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(x syntax.Node) bool {
		if t, ok := x.(*syntax.ThrowStmt); ok && t.Usage {
			found = true
		}
		return !found
	})
	return found
}
