package callgraph

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/patterns/shape"
	"github.com/proselang/prose/spec"
)

// typedOutputs checks each output's value in out against the type n
// declares for it; null passes.
func typedOutputs(n *spec.Spec, out *delegation.Object, at diag.Pos) error {
	for _, d := range n.Outputs {
		x, _ := out.Get(d.Name)
		if x == nil || d.Type == "" || shape.Fits(d.Type, x) {
			continue
		}
		return fmt.Errorf("%s: %s returns %s for its output %s, which it declares (%s) at %s: return %s",
			n.File.Position(at), n.Name, shape.Show(x), d.Name, d.Type, n.File.Position(d.Pos), article(d.Type))
	}
	return nil
}

// article names a value of type typ: "an integer", "a string[]".
func article(typ string) string {
	if strings.ContainsAny(typ, "|\"'") {
		return "a value of that type"
	}
	switch strings.ToLower(typ)[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + typ
	}
	return "a " + typ
}

// returnPos is where prog's result comes from, for a message about it: its
// one `return` that ends the whole program, else (none, or several)
// ok is false.
func returnPos(prog *syntax.Program) (pos diag.Pos, ok bool) {
	if prog == nil {
		return 0, false
	}
	n := 0
	syntax.Walk(prog, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr, *syntax.RepeatExpr:
			return false // a return there ends one iteration
		case *syntax.ReturnStmt:
			pos, n = x.Return, n+1
		}
		return true
	})
	return pos, n == 1
}
