package graph

import (
	"bytes"
	"fmt"
	"strings"
)

// Explain prints, for each ### Requires item of node id (by id or
// name), the edges it drew with the rule and the words that decided each,
// what its words of exclusion removed, and why an item drew none.
func (g *Graph) Explain(id string) ([]byte, error) {
	n := g.ref(id)
	if n == nil {
		return nil, fmt.Errorf("no node %q (nodes: %s)", id, strings.Join(g.ids(nil), ", "))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s", n.ID)
	if n.Name != "" && n.Name != n.ID {
		fmt.Fprintf(&b, " (%s)", n.Name)
	}
	fmt.Fprintf(&b, "  %s  %s\n", n.Kind, n.File)
	if len(n.Items) == 0 {
		b.WriteString("  no ### Requires items\n")
	}
	for _, it := range n.Items {
		line := n.Spec.File.Position(it.Pos).Line
		text := it.Text
		if text == "" {
			text = "#### " + it.Name
		}
		fmt.Fprintf(&b, "  line %d: %s\n", line, clip(text, 100))
		drew := false
		for _, e := range g.Edges {
			if e.Subscriber == n.ID && e.pos == it.Pos && e.Rule != "read" {
				drew = true
				fmt.Fprintf(&b, "    %s <- %s.%s  (%s: %s)\n", e.Input, e.Producer, e.Facet, e.Rule, e.Why)
			}
		}
		for _, x := range it.Excluded {
			fmt.Fprintf(&b, "    excluded %s\n", x)
		}
		switch {
		case drew:
		case it.Prior:
			b.WriteString("    no edge: it reads the node's own prior truth\n")
		default:
			why := "no edge: it names no input"
			for _, u := range g.Unresolved {
				if u.Node == n.ID && u.Item == it {
					why = "no edge: " + u.Why
				}
			}
			fmt.Fprintf(&b, "    %s\n", why)
		}
	}
	for _, e := range g.In(n.ID) {
		if e.Rule == "read" {
			fmt.Fprintf(&b, "  line %d: %s <- %s.%s  (read)\n", e.Pos.Line, e.Input, e.Producer, e.Facet)
		}
	}
	return b.Bytes(), nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
