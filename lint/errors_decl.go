package lint

import (
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// CodeUndeclaredError is a throw of an error a node's ### Errors does not
// declare.
const CodeUndeclaredError = "lint/undeclared-error"

// undeclaredThrows reports each `throw "NAME"` or `throw {error: "NAME",
// ...}` in n's program whose NAME n's ### Errors does not declare, where
// n declares some: a caller's catch reads err.error by the declared names,
// so an undeclared one reaches no handler it was written for. A throw
// inside a try with a catch is the node's own business; a thrown value
// that is not a literal name is not guessed at.
func undeclaredThrows(n *spec.Spec) diag.List {
	body := n.Body()
	if len(n.Errors) == 0 || body == nil || body.Program == nil {
		return nil
	}
	var names []string
	for _, e := range n.Errors {
		names = append(names, e.Name)
	}
	var out diag.List
	syntax.Walk(body.Program, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.TryStmt:
			if x.CatchPos != diag.NoPos {
				for _, s := range append(append([]syntax.Stmt(nil), x.Catch...), x.Finally...) {
					syntax.Walk(s, func(y syntax.Node) bool { return visitThrow(n, y, names, &out) })
				}
				return false
			}
		case *syntax.ThrowStmt:
			visitThrow(n, x, names, &out)
		}
		return true
	})
	return out
}

// visitThrow reports x when it throws a literal name n does not declare.
func visitThrow(n *spec.Spec, x syntax.Node, names []string, out *diag.List) bool {
	t, ok := x.(*syntax.ThrowStmt)
	if !ok || t.Usage { // a usage error is no declared error
		return true
	}
	name, pos := thrownName(t.Value)
	if name == "" || n.Error(name) != nil {
		return true
	}
	out.Errorf(n.File, pos, CodeUndeclaredError, "throw %q: ### Errors of %s declares only %s%s; declare %q there or throw one of those",
		name, n.Name, quoteList(names), didYouMean(name, names), name)
	return true
}

// thrownName is the error name a thrown literal states, with its position.
func thrownName(v syntax.Expr) (string, diag.Pos) {
	switch v := v.(type) {
	case *syntax.StringLit:
		if v.Parts == nil && !strings.ContainsAny(v.Value, " \t\n") {
			return v.Value, v.ValuePos
		}
	case *syntax.ObjectLit:
		for _, f := range v.Fields {
			if f.Key == "error" {
				if s, ok := f.Value.(*syntax.StringLit); ok && s.Parts == nil {
					return s.Value, s.ValuePos
				}
			}
		}
	}
	return "", diag.NoPos
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
