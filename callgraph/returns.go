package callgraph

import (
	"context"
	"fmt"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
)

// typedOutputs checks each output's value in out against the type n
// declares for it (decided): a typed output holds a value of its type;
// null passes only where the declaration admits it, `(T, optional)` or
// `T | null` (upstream's outputs are prose and have no optional marker;
// the types are this project's, so a program or a model answering
// {"score": null} for a `score` (number) is an error where it arrives,
// not a null a caller reads as a number).
func typedOutputs(n *spec.Spec, out *delegation.Object, at diag.Pos) error {
	for _, d := range n.Outputs {
		x, _ := out.Get(d.Name)
		if d.Type == "" || shape.Fits(d.ValueType(), x) {
			continue
		}
		fix := "return " + shape.Article(d.Type)
		if x == nil {
			fix += fmt.Sprintf(", or declare `%s` (%s, optional) if it may be empty", d.Name, d.Type)
		}
		return fmt.Errorf("%s: %s returns %s for its output %s, which it declares (%s) at %s: %s",
			n.File.Position(at), n.Name, shape.Show(x), d.Name, d.Type, n.File.Position(d.Pos), fix)
	}
	return nil
}

// postconditions checks the postconditions of n's ### Maintains that the
// data decides (`total` is at least 0: claim.FieldClaim, claim.Decide)
// against the value n gave, wherever it is run (decided): a function
// whose Maintains should have been Returns (lint warns of the section),
// and a responsibility run as a file rather than drained, would else give
// a value its contract refuses with exit 0. A drain checks them again at
// the commit (world/reconcile); a claim no form decides is left to the
// render, as there.
func postconditions(n *spec.Spec, out *delegation.Object, at diag.Pos) error {
	if n.Truth == nil {
		return nil
	}
	for _, c := range n.Truth.Postconditions {
		field, rest, ok := claim.FieldClaim(c.Text)
		if !ok {
			continue
		}
		v, present := out.Get(field)
		if !present {
			continue
		}
		// The values are bounded by the run's ceilings, and a form reads
		// one value: nothing here waits to be canceled.
		r, decided := claim.Decide(context.Background(), claim.Question{Path: field, Claim: rest, Value: v})
		if !decided || r.Holds {
			continue
		}
		detail := ""
		if r.Detail != "" {
			detail = " (" + r.Detail + ")"
		}
		return fmt.Errorf("%s: %s returns %s for %s, but its postcondition at %s does not hold: `%s` %s%s",
			n.File.Position(at), n.Name, shape.Show(v), field, n.File.Position(c.Pos), field, rest, detail)
	}
	return nil
}

// typedArgs checks a call's arguments against the types node n declares
// for its inputs before whatever serves it runs (a program, a model, its
// Execution); null passes for an optional input (one declared optional
// or with a default: null is its absence) or one whose type names null,
// and is an error for a required one, as for outputs. An argument lint could not
// type (an untyped input, a member of an untyped value) is checked here,
// at the boundary where its value is known.
func typedArgs(n *spec.Spec, name string, args *delegation.Object) error {
	if args == nil {
		return nil
	}
	for _, in := range n.Inputs {
		if in.Type == "" || in.Type == "run" || in.Type == "run[]" {
			continue
		}
		x, has := args.Get(in.Name)
		if x == nil && (in.Optional || in.HasDefault) || shape.Fits(in.Type, x) {
			continue
		}
		if !has {
			return fmt.Errorf("the call does not pass %s's input %s, which it declares (%s) at %s: pass %s",
				name, in.Name, in.Type, n.File.Position(in.Pos), shape.Article(in.Type))
		}
		return fmt.Errorf("the call passes %s for %s's input %s, which it declares (%s) at %s: pass %s",
			shape.Show(x), name, in.Name, in.Type, n.File.Position(in.Pos), shape.Article(in.Type))
	}
	return nil
}

// withDefaults is args with the default of each of node n's inputs that
// the call leaves out or passes as null (its absence), as a run of n
// alone binds them (decided): whatever serves n (its Execution, a
// program, a model, another spec) is given what its contract says, never
// a missing value to guess. A run-typed input's default is not read here
// (a call must pass it: lint/missing-argument, nodeGlobals). args is
// returned as it is when nothing is added.
func withDefaults(n *spec.Spec, args *delegation.Object) *delegation.Object {
	var out *delegation.Object
	for _, in := range n.Inputs {
		if !in.HasDefault || bind.IsRunType(in.Type) {
			continue
		}
		if args != nil {
			if x, _ := args.Get(in.Name); x != nil {
				continue
			}
		}
		if out == nil {
			out = delegation.NewObject()
			if args != nil {
				for _, k := range args.Keys() {
					y, _ := args.Get(k)
					out.Set(k, y)
				}
			}
		}
		out.Set(in.Name, in.Default)
	}
	if out == nil {
		return args
	}
	return out
}

// runArgs binds the arguments a call passes for node n's inputs typed
// run or run[] as an --input of the run's own spec is bound
// (bind.Env.RunInput): a run id, or the path of a run directory (a list
// of them, or ids separated by commas, for run[]), is resolved to the
// run's object before whatever serves n runs, and a reference to no run
// that ended fails the call, naming the input. A run already bound (the
// caller's own run-typed input passed on) is passed as it is. Decided:
// the warnings of a bound run (it failed, its spec changed) are not
// repeated at each call; the object's status says it. args is returned
// unchanged when n declares no such input.
func runArgs(env *bind.Env, n *spec.Spec, name string, args *delegation.Object) (*delegation.Object, error) {
	if args == nil {
		return args, nil
	}
	var out *delegation.Object
	for _, in := range n.Inputs {
		if !bind.IsRunType(in.Type) {
			continue
		}
		x, has := args.Get(in.Name)
		if !has || x == nil && (in.Optional || in.HasDefault) || boundRuns(in.Type, x) {
			continue
		}
		v, _, err := env.RunInput(in.Type, x, nil, false)
		if err != nil {
			return nil, fmt.Errorf("the call passes %s for %s's input %s, which it declares %s at %s: %v",
				shape.Show(x), name, in.Name, in.Type, n.File.Position(in.Pos), err)
		}
		if out == nil {
			out = delegation.NewObject()
			for _, k := range args.Keys() {
				y, _ := args.Get(k)
				out.Set(k, y)
			}
		}
		out.Set(in.Name, v)
	}
	if out == nil {
		return args, nil
	}
	fz, err := delegation.Freeze(out)
	if err != nil {
		return nil, err
	}
	return fz.(*delegation.Object), nil
}

// boundRuns reports whether x is already what an input typed typ binds:
// a run's object (with its run and journal), or for run[] a list of them.
func boundRuns(typ string, x delegation.Value) bool {
	if typ == "run[]" {
		l, ok := x.(*delegation.List)
		if !ok {
			return false
		}
		for _, e := range l.Elems() {
			if !boundRuns("run", e) {
				return false
			}
		}
		return true
	}
	o, ok := x.(*delegation.Object)
	if !ok {
		return false
	}
	id, _ := o.Get("run")
	j, _ := o.Get("journal")
	_, idText := id.(string)
	_, jText := j.(string)
	return idText && jText
}

// returns are the `return` statements that end the whole of prog (not
// one iteration of a value-producing loop), in source order: where its
// result comes from, for a message about it.
func returns(prog *syntax.Program) []diag.Pos {
	if prog == nil {
		return nil
	}
	var out []diag.Pos
	syntax.Walk(prog, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr, *syntax.RepeatExpr:
			return false // a return there ends one iteration
		case *syntax.DoExpr, *syntax.BlockStmt:
			return false // a return there gives the block's value
		case *syntax.ReturnStmt:
			out = append(out, x.Return)
		}
		return true
	})
	return out
}

// endedWithoutReturn is the error of n's Execution running to its end
// without a `return`, or nil when n may give nothing. Decided: when n
// declares an output that must hold a value (one that is neither
// optional nor a `####` facet), such a run is an error at the Execution,
// not the null a bare `return` gives on purpose: upstream's `return`
// chooses the value that satisfies ### Returns / ### Maintains, and a
// branch that forgot its return would else give {"out": null} with
// exit 0.
func endedWithoutReturn(n *spec.Spec) error {
	var need []string
	for _, d := range n.Outputs {
		if !d.Optional && !d.Facet && !d.Inferred {
			need = append(need, d.Name)
		}
	}
	if len(need) == 0 {
		return nil
	}
	word := "output"
	if len(need) > 1 {
		word = "outputs"
	}
	return fmt.Errorf("%s: the Execution of %s ended without a return, but %s declares the %s %s: end every path with return {%s: ...} (return null to give nothing on purpose)",
		n.File.Position(nodePos(n)), n.Name, n.Name, word, strings.Join(need, ", "), need[0])
}

// checkReturn applies the return rule and the declared types to v, the
// value n's Execution prog returned: an error is reported at the return
// when there is one, else at the Execution, naming the lines of the
// returns that may have given it.
func checkReturn(n *spec.Spec, prog *syntax.Program, v delegation.Value) (*delegation.Object, error) {
	rs := returns(prog)
	if len(rs) == 1 {
		return outputsAt(n, v, rs[0])
	}
	out, err := Outputs(n, v)
	if err == nil || len(rs) == 0 {
		return out, err
	}
	lines := make([]string, len(rs))
	for i, p := range rs {
		lines[i] = fmt.Sprint(n.File.Position(p).Line)
	}
	return nil, fmt.Errorf("%w (returned by one of the returns at lines %s)", err, strings.Join(lines, ", "))
}
