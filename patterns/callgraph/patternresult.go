package callgraph

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/patterns/shape"
	"github.com/proselang/prose/spec"
)

// A pattern's result is checked against the outputs it declares (decided),
// by the return rule of functions: when it declares two or more outputs
// (named items of ### Ensures or ### Returns, not ones inferred from the
// return itself) and its Delegation returns an object, each must be a key
// of it, of its declared type when it states one (null passes). One
// declared output may be the whole value (`result: the service's
// answer`), and a result that is not an object is not matched with the
// names: a pattern's items often describe a plain value. The
// error names the return that gave the value when one return ends the
// Delegation, else every return's line.

// CheckPatternResult checks v, the value sp's Delegation returned: the
// run of a pattern, nested or not, ends with it.
func CheckPatternResult(sp *spec.Spec, v delegation.Value) error {
	o, ok := v.(*delegation.Object)
	if !ok || sp.Delegation == nil || sp.Delegation.Program == nil {
		return nil
	}
	var declared []*spec.Output
	for _, d := range sp.Outputs {
		if !d.Inferred && !d.Facet {
			declared = append(declared, d)
		}
	}
	if len(declared) < 2 {
		return nil
	}
	var missing, names []string
	var wrong string
	for _, d := range declared {
		names = append(names, d.Name)
		x, has := o.Get(d.Name)
		switch {
		case !has:
			missing = append(missing, strconv.Quote(d.Name))
		case wrong == "" && x != nil && d.Type != "" && !shape.Fits(d.Type, x):
			wrong = fmt.Sprintf("%s is %s, which %s declares (%s) at %s", d.Name, shape.Show(x), sp.Name, d.Type, sp.File.Position(d.Pos))
		}
	}
	if len(missing) == 0 && wrong == "" {
		return nil
	}
	at, where := resultPos(sp)
	if len(missing) > 0 {
		word := "key"
		if len(missing) > 1 {
			word = "keys"
		}
		return fmt.Errorf("%s: %s returns an object without the %s %s, but it declares the outputs %s%s: return an object with those keys",
			sp.File.Position(at), sp.Name, word, strings.Join(missing, ", "), strings.Join(names, ", "), where)
	}
	return fmt.Errorf("%s: %s returns an object whose %s%s", sp.File.Position(at), sp.Name, wrong, where)
}

// resultPos is where sp's result comes from: its one return that ends
// the Delegation; else the Delegation, with the lines of its returns.
func resultPos(sp *spec.Spec) (diag.Pos, string) {
	var rets []diag.Pos
	syntax.Walk(sp.Delegation.Program, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr, *syntax.RepeatExpr:
			return false // a return there ends one iteration
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
