package graph

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// CodeAlwaysTrue is an Execution's condition on an input that is a
// producer's whole truth: an object that is never empty.
const CodeAlwaysTrue = "graph/always-true"

// wholeConditions reports each condition of an Execution (if, elif, loop
// while, loop until, and the operands of not, and, or there) that is an
// input bound to one producer's whole truth (decided: an error). That
// truth is an object holding every field its Maintains declares (a drain
// publishes no other), so it is never empty and the condition is always
// true: `if crossed:` where `crossed` reads all of `count-summary` takes
// the branch when its `threshold_crossed` is false, with exit 0. An input
// the program assigns anew is not followed.
func (g *Graph) wholeConditions() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		s := n.Spec
		if s.Execution == nil || s.Execution.Program == nil {
			continue
		}
		whole := map[string]*Node{}
		for _, in := range s.Inputs {
			if p := g.wholeOf(n, in.Name); p != nil {
				whole[in.Name] = p
			}
		}
		if len(whole) == 0 {
			continue
		}
		prog := s.Execution.Program
		syntax.Walk(prog, func(x syntax.Node) bool {
			switch st := x.(type) {
			case *syntax.LetStmt:
				if st.Name != nil {
					delete(whole, st.Name.Name)
				}
			case *syntax.AssignStmt:
				if id, ok := st.LHS.(*syntax.Ident); ok {
					delete(whole, id.Name)
				}
			}
			return true
		})
		var conds []syntax.Expr
		syntax.Walk(prog, func(x syntax.Node) bool {
			switch st := x.(type) {
			case *syntax.IfStmt:
				conds = append(conds, st.Cond)
			case *syntax.WhileStmt:
				conds = append(conds, st.Cond)
			}
			return true
		})
		for _, c := range conds {
			for _, id := range operands(c, nil) {
				p := whole[id.Name]
				if p == nil {
					continue
				}
				out.Errorf(prog.File, id.NamePos, CodeAlwaysTrue, "%s is the whole truth of %s, an object of %s that is never empty, so as a condition it is always true: test one of its fields (%s), or read that field alone (`%s.FIELD` in its ### Requires item)",
					id.Name, p.Label(), strings.Join(p.Fields, ", "), fieldHint(id.Name, p), p.ID)
			}
		}
	}
	return out
}

// operands are the identifiers whose truth value decides condition e.
func operands(e syntax.Expr, out []*syntax.Ident) []*syntax.Ident {
	switch x := e.(type) {
	case *syntax.Ident:
		out = append(out, x)
	case *syntax.UnaryExpr:
		if x.Op == syntax.NOT {
			out = operands(x.X, out)
		}
	case *syntax.BinaryExpr:
		if x.Op == syntax.AND || x.Op == syntax.OR {
			out = operands(x.Y, operands(x.X, out))
		}
	}
	return out
}

// wholeOf is the producer whose whole truth alone feeds n's input in,
// when it declares fields and no facets or families (wholeMembers).
func (g *Graph) wholeOf(n *Node, in string) *Node {
	var p *Node
	for _, e := range g.In(n.ID) {
		if e.Input != in {
			continue
		}
		if p != nil || e.Facet != Atomic || e.Rule == "read" {
			return nil
		}
		p = g.byID[e.Producer]
	}
	if wholeMembers(p) == nil {
		return nil
	}
	return p
}

// fieldHint names the field of p the condition may mean: its one boolean
// field, else its fields.
func fieldHint(name string, p *Node) string {
	var bools []string
	for _, o := range p.Spec.Outputs {
		if !o.Facet && strings.EqualFold(strings.TrimSpace(o.Type), "boolean") {
			bools = append(bools, o.Name)
		}
	}
	if len(bools) == 1 {
		return fmt.Sprintf("did you mean %s.%s?", name, bools[0])
	}
	return fmt.Sprintf("%s.FIELD", name)
}

// CodeUnread is a gateway no node of the project reads (a warning).
const CodeUnread = "graph/unread"

// unreadGateways warns of each gateway no node's ### Requires (nor a
// read_world_model) reads, in a project of more than one node (decided:
// a warning). Its events are folded into a truth nothing subscribes to,
// so they wake no one: most often the item meant to read it names
// another node, or misses it. A project of the gateway alone is not
// warned of.
func (g *Graph) unreadGateways() diag.List {
	if len(g.Nodes) < 2 {
		return nil
	}
	read := map[string]bool{}
	for _, e := range g.Edges {
		read[e.Producer] = true
	}
	var out diag.List
	for _, n := range g.Nodes {
		if n.Kind == spec.KindGateway && !read[n.ID] {
			out.Warnf(n.Spec.File, n.Spec.Pos, CodeUnread, "no node reads gateway %s: its events wake no one; name it in the ### Requires item meant to read it (- `NAME`: ... from `%s`)", n.Label(), n.ID)
		}
	}
	return out
}
