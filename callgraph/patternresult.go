package callgraph

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
)

// A pattern's result is checked against the outputs it declares (decided):
// when its Delegation returns an object, each declared output it holds
// (a named item of ### Ensures or ### Returns, not one inferred from the
// return itself) must be of its declared type when it states one. An
// untyped output it leaves out is not an error: upstream's patterns
// declare outputs that only some paths give (oversight's abort_reason,
// worker-critic's final_critique), and they state no types. A type is
// this project's own, and held as a function's is (typedOutputs): an
// output declared `(number)` that the object lacks or holds as null is
// an error, since a caller would read null where the declaration
// promised a number; one that only some paths give is declared
// `(number, optional)` or `number | null`. A result that is not an object
// is not matched with the names: a pattern's items often describe a plain
// value. An object that lacks a declared output but has a key that
// misspells it ({"reslt": ...} for result) is an error whatever the
// output's type, as lint reports such a return.
// The error names the return that gave the value when one return ends the
// Delegation, else every return's line.

// CheckPatternResult checks v, the value sp's Delegation returned: the
// run of a pattern, nested or not, ends with it.
func CheckPatternResult(sp *spec.Spec, v delegation.Value) error {
	o, ok := v.(*delegation.Object)
	if !ok || sp.Delegation == nil || sp.Delegation.Program == nil {
		return nil
	}
	declared := map[string]bool{}
	for _, d := range sp.Outputs {
		declared[d.Name] = true
	}
	for _, d := range sp.Outputs {
		if d.Inferred || d.Facet {
			continue
		}
		if _, has := o.Get(d.Name); !has {
			// a key that misspells the output, which the object lacks
			if near := (didyoumean.Matcher{Fold: didyoumean.Loose}).Closest(d.Name, o.Keys()); near != "" && !declared[near] {
				at, where := resultPos(sp)
				return fmt.Errorf("%s: %s returns an object with the key %q but without its output %s, declared at %s%s: give the key %s",
					sp.File.Position(at), sp.Name, near, d.Name, sp.File.Position(d.Pos), where, d.Name)
			}
		}
		if d.Type == "" {
			continue
		}
		x, has := o.Get(d.Name)
		if shape.Fits(d.ValueType(), x) {
			continue
		}
		at, where := resultPos(sp)
		fix := "return " + shape.Article(d.Type)
		if x == nil {
			fix += fmt.Sprintf(", or declare `%s` (%s, optional) if only some returns give it", d.Name, d.Type)
		}
		if !has {
			return fmt.Errorf("%s: %s returns an object without its output %s, which it declares (%s) at %s%s: give %s the key %s, or declare `%s` (%s, optional) if only some returns give it",
				sp.File.Position(at), sp.Name, d.Name, d.Type, sp.File.Position(d.Pos), where, "the returned object", d.Name, d.Name, d.Type)
		}
		return fmt.Errorf("%s: %s returns %s for its output %s, which it declares (%s) at %s%s: %s",
			sp.File.Position(at), sp.Name, shape.Show(x), d.Name, d.Type, sp.File.Position(d.Pos), where, fix)
	}
	return nil
}

// resultPos is where sp's result comes from: its one return that ends
// the Delegation; else the Delegation, with the lines of its returns.
func resultPos(sp *spec.Spec) (diag.Pos, string) {
	var rets []diag.Pos
	syntax.Walk(sp.Delegation.Program, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr, *syntax.RepeatExpr:
			return false // a return there ends one iteration
		case *syntax.DoExpr, *syntax.BlockStmt:
			return false // a return there gives the block's value
		case *syntax.ReturnStmt:
			rets = append(rets, x.Return)
		}
		return true
	})
	if len(rets) == 1 {
		return rets[0], ""
	}
	lines := make([]string, len(rets))
	for i, p := range rets {
		lines[i] = strconv.Itoa(sp.File.Position(p).Line)
	}
	where := ""
	if len(rets) > 1 {
		where = " (returned by one of the returns at lines " + strings.Join(lines, ", ") + ")"
	}
	return sp.Delegation.Pos, where
}

// checkedRun runs the Delegation of sp, a pattern called as a service,
// and checks its result (CheckPatternResult): a result that breaks the
// declared outputs fails the attempt.
func checkedRun(ctx context.Context, sp *spec.Spec, globals map[string]delegation.Value, req *delegation.CallRequest) (delegation.Value, error) {
	v, err := delegation.Run(ctx, sp.Delegation.Program, globals, nestedHost(req))
	if err != nil {
		return nil, err
	}
	if err := CheckPatternResult(sp, v); err != nil {
		return nil, err
	}
	return v, nil
}
