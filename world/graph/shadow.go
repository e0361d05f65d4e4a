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
