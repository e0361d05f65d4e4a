package graph

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Reads of a world model in an Execution (decided): `read_world_model("self")`,
// or of the node's own id, name or world-model name, is its prior truth
// and draws no edge (reading one's own truth does not put a node in the
// graph). `read_world_model("NODE")` of another node subscribes to that
// node's whole truth: an edge with rule "read" and input ReadInput(NODE),
// so the memo key covers what the Execution reads and the producer renders
// first. A node no id, name or title names is an unsatisfied read at the
// string, with did-you-mean.

// Self is the argument of read_world_model that names the node's own truth.
const Self = "self"

// ReadInput is the input name of the edge a read of node draws.
func ReadInput(node string) string { return syntax.WorldRead + "(" + node + ")" }

// WorldRead is one read_world_model call of an Execution.
type WorldRead struct {
	Node string
	Pos  diag.Pos
}

// WorldReads lists the read_world_model calls of n's Execution whose node
// is a string, in source order.
func WorldReads(n *Node) []WorldRead {
	ex := n.Spec.Execution
	if ex == nil || ex.Program == nil {
		return nil
	}
	var out []WorldRead
	syntax.Walk(ex.Program, func(x syntax.Node) bool {
		c, ok := x.(*syntax.CallExpr)
		if !ok {
			return true
		}
		if id, ok := c.Target.(*syntax.Ident); !ok || id.Name != syntax.WorldRead {
			return true
		}
		for _, a := range c.Args {
			if s, ok := a.Value.(*syntax.StringLit); ok && a.Key == "node" {
				out = append(out, WorldRead{Node: s.Value, Pos: s.ValuePos})
			}
		}
		return true
	})
	return out
}

// ReadsSelf reports whether a read of name is n's own prior truth.
func (n *Node) ReadsSelf(name string) bool { return name == Self || n.self(name) }

// wireReads draws the edges of n's reads of other nodes.
func (g *Graph) wireReads(n *Node) diag.List {
	var diags diag.List
	seen := map[string]bool{}
	for _, r := range WorldReads(n) {
		if n.ReadsSelf(r.Node) || seen[r.Node] {
			continue
		}
		seen[r.Node] = true
		p := g.ref(r.Node)
		if p == nil {
			msg := fmt.Sprintf("%s(%q) of %s: no node is %q", syntax.WorldRead, r.Node, n.ID, r.Node)
			names := g.ids(n)
			for _, o := range g.Nodes {
				if o != n && o.Name != "" && o.Name != o.ID {
					names = append(names, o.Name)
				}
			}
			if best := nearest(r.Node, names); best != "" {
				msg += fmt.Sprintf("; did you mean %q?", best)
			} else {
				msg += fmt.Sprintf(" (nodes: %s; %q reads its own prior truth)", g.labels(n), Self)
			}
			diags.Errorf(n.Spec.File, r.Pos, CodeUnsatisfied, "%s", msg)
			continue
		}
		g.Edges = append(g.Edges, &Edge{Subscriber: n.ID, Input: ReadInput(r.Node), Producer: p.ID, Facet: Atomic, Rule: "read",
			Pos: n.Spec.File.Position(r.Pos), pos: r.Pos})
	}
	return diags
}

// labels lists the nodes other than except as ID (name), for a message.
func (g *Graph) labels(except *Node) string {
	var out []string
	for _, p := range g.Nodes {
		if p != except {
			out = append(out, p.Label())
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
