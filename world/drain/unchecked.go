package drain

import (
	"fmt"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/claim/form"
	"github.com/proselang/prose/run"
)

// Unchecked says, one line each, which postconditions of the graph's
// nodes nothing checks in a drain of p (decided): a postcondition in a
// claim form (`total` is at least 0) is checked at each commit, and a
// model render is told the others and polices them, as upstream's render
// does; but a node rendered by a program or by its own Execution is
// checked against none of the others, so its truth may break one with
// exit 0. The drain still runs; the CLI prints these as warnings before
// it, so that what nothing checks is said.
func (p *Prepared) Unchecked() []string {
	if p.given != nil {
		return nil
	}
	var out []string
	for _, n := range p.Graph.Nodes {
		if n.Spec == nil || n.Spec.Truth == nil {
			continue
		}
		what := "its ### Execution"
		switch p.binding(n).(type) {
		case run.Model:
			continue
		case run.Exec:
			what = "a program"
		case nil:
		default:
			continue
		}
		for _, c := range n.Spec.Truth.Postconditions {
			if _, rest, ok := claim.FieldClaim(c.Text); ok {
				if _, decided := form.Decide(rest, nil); decided {
					continue
				}
			}
			out = append(out, fmt.Sprintf("%s: warning: postcondition %q of %s is checked by nothing in this drain: %s renders it, and no claim form decides it; check it there, or write it as `FIELD` CLAIM in a form prose decides (is at least N, contains \"x\", has at most N items, ...)",
				n.Spec.File.Position(c.Pos), c.Text, n.Label(), what))
		}
	}
	return out
}
