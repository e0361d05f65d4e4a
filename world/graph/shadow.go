package graph

import (
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// CodePriorShadowed is an Execution reading a name that is both one of
// its node's inputs and a field or facet of its own ### Maintains (a
// warning).
const CodePriorShadowed = "graph/prior-shadowed"

// priorShadowed warns where an Execution reads a name its node both
// requires and maintains (an item "`latest`: the `latest` of `sensor`"
// beside a field "`latest` (number)"): the name is the input, and the prior truth's
// member of that name cannot be read by it (spec.PriorNames). Decided: a
// warning at the first read, naming both meanings and how to say each,
// since "the previous latest plus the new" reads as the prior, and the
// run would add to the input in silence. A name the Execution binds
// itself at the top (`let latest = ...`) is its own, as for PriorNames;
// a Requires item naming the node's own world model is its prior.
func (g *Graph) priorShadowed() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		s := n.Spec
		if s == nil || s.Execution == nil || s.Execution.Program == nil {
			continue
		}
		both := map[string]bool{}
		for _, o := range s.Outputs {
			if o.Inferred {
				continue
			}
			for _, in := range s.Inputs {
				if in.Name == o.Name && !priorItem(n, in.Name) {
					both[o.Name] = true
				}
			}
		}
		for _, st := range s.Execution.Program.Body {
			if let, ok := st.(*syntax.LetStmt); ok && let.Name != nil {
				delete(both, let.Name.Name)
			}
		}
		if len(both) == 0 {
			continue
		}
		syntax.Walk(s.Execution.Program, func(x syntax.Node) bool {
			id, ok := x.(*syntax.Ident)
			if !ok || !both[id.Name] {
				return true
			}
			delete(both, id.Name)
			out.Warnf(s.File, id.NamePos, CodePriorShadowed,
				"%s in the Execution of %s is its input %s (its ### Requires item), never its own prior %s, which its ### Maintains declares too: read the prior as read_world_model(\"self\").%s, or give the input another name (`%s_in`: ...) so each name means one value",
				id.Name, n.ID, id.Name, id.Name, id.Name, id.Name)
			return true
		})
	}
	return out
}

// CodeImmaterialRead is an Execution reading, from a producer's whole
// truth, a field the producer calls immaterial (a warning).
const CodeImmaterialRead = "graph/immaterial-read"

// immaterialReads warns where an Execution reads a field of an input
// that is a producer's whole truth (`src.seen_at`) and that the
// producer's ### Maintains calls immaterial. A change of that field
// moves no fingerprint, so it wakes no subscriber of the whole truth:
// the node keeps the value of its last render while the producer's
// moves on. Decided: a warning at the read (a stamp shown "as of" its
// last render may be meant), naming the subscription that does wake on
// it ("the `F` of `P`", which reads the field itself).
func (g *Graph) immaterialReads() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		s := n.Spec
		if s == nil || s.Execution == nil || s.Execution.Program == nil {
			continue
		}
		whole := map[string]*Node{} // the Execution's name of an input -> its one producer, read whole
		for _, in := range s.Inputs {
			key := in.Name
			if it := n.ItemOf(in); it != nil && it.Name != "" {
				key = it.Name
			}
			var es []*Edge
			for _, e := range g.In(n.ID) {
				if e.Input == key {
					es = append(es, e)
				}
			}
			if len(es) == 1 && es[0].Facet == Atomic {
				if p := g.byID[es[0].Producer]; p != nil && p.Spec.Truth != nil && len(p.Spec.Truth.Immaterial) > 0 {
					whole[in.Name] = p
				}
			}
		}
		if len(whole) == 0 {
			continue
		}
		seen := map[string]bool{}
		syntax.Walk(s.Execution.Program, func(x syntax.Node) bool {
			m, ok := x.(*syntax.MemberExpr)
			if !ok {
				return true
			}
			id, ok := m.X.(*syntax.Ident)
			if !ok || whole[id.Name] == nil {
				return true
			}
			p := whole[id.Name]
			if !contains(p.Spec.Truth.Immaterial, m.Name) || seen[id.Name+"."+m.Name] {
				return true
			}
			seen[id.Name+"."+m.Name] = true
			out.Warnf(s.File, m.NamePos, CodeImmaterialRead,
				"%s.%s reads %s, which %s's ### Maintains calls immaterial: a change of it wakes no subscriber of %s's whole truth, so %s would keep the value of its last render; to be woken by it, read it as an item of its own (- `%s`: the `%s` of `%s`), or make it material",
				id.Name, m.Name, m.Name, p.ID, p.ID, n.ID, m.Name, m.Name, p.ID)
			return true
		})
	}
	return out
}
