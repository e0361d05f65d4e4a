package lint

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// instanceRefusals runs the checks a pattern makes of its own config (its
// `throw usage` statements, delegation/semantics.md 31a) with the config
// a ### Patterns instance gives it, so that a value the pattern would
// refuse at run time (worker-critic's max_rounds: 0, refine's threshold:
// 80) is lint/config-value at the instance's config line, before the run.
//
// Only what lint can know is run: the top-level statements of the
// pattern's Delegation up to its first call, judgment or gate, and of
// those only the ones that read nothing but config keys whose values are
// known (the instance's, else the pattern's defaults) and names bound
// before them there. A check that reads an input, which only a call
// gives, is left to the run.
func instanceRefusals(s *spec.Spec, p *spec.PatternInstance, ps *spec.Spec) diag.List {
	b := ps.Body()
	if b == nil || b.Program == nil || ps.Delegation == nil || b != ps.Delegation {
		return nil
	}
	known := map[string]delegation.Value{}
	for _, c := range ps.Config {
		raw, given := p.Config[c.Name]
		if !given {
			if !c.HasDefault {
				continue
			}
			raw = c.Default
		}
		v, ok := spec.ConfigValue(c.Type, raw)
		if !ok {
			continue // lint/config-value already says so
		}
		if dv, ok := runValue(v); ok {
			known[c.Name] = dv
		}
	}
	if len(known) == 0 {
		return nil
	}
	bound := map[string]bool{}
	for k := range known {
		bound[k] = true
	}
	var stmts []syntax.Stmt
	usage := false
	for _, st := range b.Program.Body {
		if !pure(st) {
			break
		}
		names, locals := namesOf(st)
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
		return nil
	}
	prog := *b.Program
	prog.Body = stmts
	_, err := delegation.Run(context.Background(), &prog, known, &delegation.Host{MaxSteps: 10000})
	var e *delegation.Error
	if !errors.As(err, &e) || e.Kind != delegation.KindUsage {
		return nil
	}
	// at the config line of a key the refusing statement reads, when
	// the instance sets one
	at := p.Pos
	for _, st := range stmts {
		if b.Program.File.Position(st.Pos()).Line > e.Pos.Line {
			break
		}
		names, _ := namesOf(st)
		at = p.Pos
		for _, n := range names {
			if pos, ok := p.ConfigPos[n]; ok {
				at = pos
				break
			}
		}
	}
	var out diag.List
	out.Errorf(s.File, at, CodeConfigValue, "pattern instance %s: %s refuses this config at %s: %s", p.Name, ps.Name, e.Pos, e.Msg)
	return out
}

// runValue is the run-time value of a decoded config value.
func runValue(v any) (delegation.Value, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	dv, err := delegation.FromJSON(raw)
	return dv, err == nil
}

// pure reports whether st can run without a service, a judge or a person:
// no call, gate or natural-language condition, and no parallel loop.
func pure(st syntax.Stmt) bool {
	ok := true
	syntax.Walk(st, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.CallExpr, *syntax.GateExpr, *syntax.NaturalCond, *syntax.ParallelStmt, *syntax.RepeatExpr, *syntax.WhileStmt:
			ok = false
		case *syntax.ForExpr:
			ok = ok && !x.Parallel
		}
		return ok
	})
	return ok
}

// namesOf lists the names st reads, and the names it binds inside itself
// (a loop's variables, its lets).
func namesOf(st syntax.Stmt) (names []string, locals map[string]bool) {
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
		case *syntax.Ident:
			names = append(names, x.Name)
		}
		return true
	})
	return names, locals
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
