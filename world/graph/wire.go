package graph

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/diag"
)

// Wiring rules. Each ### Requires item of a node is bound, by the first of
// these rules that binds it:
//
//	(a) explicit: the item's name is a node (id or name) or node.part;
//	(b) name: the item's name is a `####` facet, a Maintains field or a
//	    backticked world-model name (``The `CountSummary` world-model``)
//	    of exactly one other node;
//	(c) reference: the item's text names nodes in backticks or bold (by
//	    id, name or title; `node.part` too); the part is a backticked
//	    facet of that node in the text (`email:<id>` stands for every
//	    facet starting `email:`), else the item's name when it is a part
//	    of that node, else the whole truth. Several nodes make a fan-in,
//	    bound to each. Without a node, backticked parts of exactly one
//	    node bind to them;
//	(d) wiring: the committed wiring file says `subscriber.input:
//	    producer.part`.
//
// A part is the whole truth (Atomic), a `####` facet or a field: each a
// member of the truth, fingerprinted alike. An item that reads the node's
// own truth ("prior `CountTrend`") draws no edge. An item none binds is
// unsatisfied (an error with did-you-mean) when its name is close to a
// node or part or its text points at a node that does not exist, ambiguous
// (an error naming the candidates) when rule (b) found several, and else a
// caller input of its node. A cycle is an error at the item that closes
// it, naming the path; that edge is dropped.

// Diagnostic codes.
const (
	CodeUnsatisfied = "graph/unsatisfied"
	CodeAmbiguous   = "graph/ambiguous"
	CodeCycle       = "graph/cycle"
)

// ref finds a node by id, name or title (case-insensitively for titles).
func (g *Graph) ref(s string) *Node {
	if n := g.byID[s]; n != nil {
		return n
	}
	for _, n := range g.Nodes {
		if n.Name == s || strings.EqualFold(n.Title, s) {
			return n
		}
	}
	return nil
}

// hasPart reports whether p is a part (facet or field) of n.
func (n *Node) hasPart(p string) bool {
	return contains(n.Facets, p) || contains(n.Fields, p)
}

// worldName reports whether n's Maintains calls its truth name.
func (n *Node) worldName(name string) bool {
	return n.Spec.Truth != nil && contains(n.Spec.Truth.Names, name)
}

// self reports whether name is n's own: its id, name or world-model name.
func (n *Node) self(name string) bool {
	return name == n.ID || name == n.Name || n.worldName(name)
}

func (g *Graph) wire() diag.List {
	var diags diag.List
	for _, n := range g.Nodes {
		for _, it := range n.Items {
			if it.Prior || it.Name != "" && n.self(it.Name) {
				it.Prior = true
				continue
			}
			edges, ambiguous := g.bind(n, it)
			if len(edges) > 0 {
				g.Edges = append(g.Edges, edges...)
				continue
			}
			f := n.Spec.File
			un := &Unresolved{Node: n.ID, Item: it, Pos: f.Position(it.Pos), Candidates: ambiguous}
			g.Unresolved = append(g.Unresolved, un)
			switch {
			case len(ambiguous) > 0:
				un.Why = CodeAmbiguous
				diags.Errorf(f, it.Pos, CodeAmbiguous, "%s of %s is ambiguous: %s could each give it; write `producer.part` or add it to %s",
					quoteName(it), n.ID, strings.Join(ambiguous, ", "), WiringFile)
			default:
				if msg := g.unsatisfied(n, it); msg != "" {
					un.Why = CodeUnsatisfied
					diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s", msg)
				} else if it.Name != "" {
					un.Why = "caller"
					n.CallerInputs = append(n.CallerInputs, it.Name)
				} else {
					g.Unresolved = g.Unresolved[:len(g.Unresolved)-1] // a sentence, no input
				}
			}
		}
		diags = append(diags, g.wireReads(n)...)
	}
	return diags
}

func quoteName(it *Item) string {
	if it.Name == "" {
		return "this input"
	}
	return fmt.Sprintf("input %q", it.Name)
}

// bind applies rules (a) to (d) to one item.
func (g *Graph) bind(n *Node, it *Item) (edges []*Edge, ambiguous []string) {
	edge := func(p *Node, part, rule string) *Edge {
		return &Edge{Subscriber: n.ID, Input: it.Name, Producer: p.ID, Facet: part, Rule: rule, Pos: n.Spec.File.Position(it.Pos), pos: it.Pos}
	}
	// (a)
	if p, part, ok := g.dotted(it.Name, n); ok {
		return []*Edge{edge(p, part, "explicit")}, nil
	}
	// (b)
	if it.Name != "" {
		var cands []*Edge
		for _, p := range g.Nodes {
			switch {
			case p == n:
			case p.hasPart(it.Name):
				cands = append(cands, edge(p, it.Name, "name"))
			case p.worldName(it.Name):
				cands = append(cands, edge(p, Atomic, "name"))
			}
		}
		if len(cands) == 1 {
			return cands, nil
		}
		for _, c := range cands {
			ambiguous = append(ambiguous, c.Producer+"."+strings.TrimPrefix(c.Facet, "@"))
		}
	}
	// (c)
	if es := g.references(n, it, edge); len(es) > 0 {
		return es, nil
	}
	// (d)
	if g.Wiring != nil {
		if to, ok := g.Wiring.Edges[n.ID+"."+it.Name]; ok {
			if p, part, ok := g.dotted(to, n); ok {
				return []*Edge{edge(p, part, "wiring")}, nil
			}
		}
	}
	return nil, ambiguous
}

// dotted reads `node` or `node.part` naming a node other than self.
func (g *Graph) dotted(s string, self *Node) (*Node, string, bool) {
	if s == "" {
		return nil, "", false
	}
	if p := g.ref(s); p != nil && p != self {
		return p, Atomic, true
	}
	for i := strings.IndexByte(s, '.'); i > 0; i = nextDot(s, i) {
		if p := g.ref(s[:i]); p != nil && p != self {
			part := s[i+1:]
			if part == Atomic || p.hasPart(part) {
				return p, part, true
			}
		}
	}
	return nil, "", false
}

func nextDot(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// references applies rule (c).
func (g *Graph) references(n *Node, it *Item, edge func(*Node, string, string) *Edge) []*Edge {
	ticks := backticked(it.Text)
	var nodes []*Node
	parts := map[*Node][]string{}
	add := func(p *Node, part string) {
		if _, ok := parts[p]; !ok {
			nodes = append(nodes, p)
		}
		if part != "" && !contains(parts[p], part) {
			parts[p] = append(parts[p], part)
		}
	}
	for _, r := range append(ticks, bolded(it.Text)...) {
		if p, part, ok := g.dotted(r, n); ok {
			if part == Atomic {
				part = ""
			}
			add(p, part)
		} else if p := g.ref(strings.TrimSuffix(r, "'s")); p != nil && p != n {
			add(p, "")
		}
	}
	if len(nodes) == 0 {
		// A backticked part of exactly one node.
		var owners []*Node
		var part []string
		for _, p := range g.Nodes {
			if p == n {
				continue
			}
			fs := facetsNamed(p, ticks)
			for _, t := range ticks {
				if contains(p.Fields, t) && !contains(fs, t) {
					fs = append(fs, t)
				}
			}
			if len(fs) > 0 {
				owners, part = append(owners, p), fs
			}
		}
		if len(owners) != 1 {
			return nil
		}
		nodes, parts[owners[0]] = owners, part
	}
	var out []*Edge
	for _, p := range nodes {
		ps := parts[p]
		if len(ps) == 0 {
			ps = facetsNamed(p, ticks)
		}
		if len(ps) == 0 && p.hasPart(it.Name) {
			ps = []string{it.Name}
		}
		if len(ps) == 0 {
			ps = []string{Atomic}
		}
		for _, part := range ps {
			out = append(out, edge(p, part, "reference"))
		}
	}
	return out
}

// facetsNamed lists p's facets that the backticked texts name:
// `funding`, or `email:<id>` for every facet starting "email:".
func facetsNamed(p *Node, ticks []string) []string {
	var out []string
	for _, t := range ticks {
		if i := strings.IndexByte(t, '<'); i > 0 && strings.HasSuffix(t, ">") {
			for _, f := range p.Facets {
				if strings.HasPrefix(f, t[:i]) && !contains(out, f) {
					out = append(out, f)
				}
			}
			continue
		}
		if contains(p.Facets, t) && !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// unsatisfied explains why an unbound item is an error, or returns ""
// when it is a caller input.
func (g *Graph) unsatisfied(n *Node, it *Item) string {
	var cands []string
	for _, p := range g.Nodes {
		if p == n {
			continue
		}
		cands = append(cands, p.ID)
		if p.Name != p.ID && p.Name != "" {
			cands = append(cands, p.Name)
		}
		for _, f := range append(append([]string{}, p.Facets...), p.Fields...) {
			cands = append(cands, f, p.ID+"."+f)
		}
		if p.Spec.Truth != nil {
			cands = append(cands, p.Spec.Truth.Names...)
		}
	}
	what := quoteName(it)
	for _, r := range append([]string{it.Name}, backticked(it.Text)...) {
		if r == "" || n.self(r) {
			continue
		}
		if best := nearest(r, cands); best != "" {
			return fmt.Sprintf("%s of %s: nothing maintains %q; did you mean %s?", what, n.ID, r, best)
		}
	}
	low := strings.ToLower(it.Text)
	if i := strings.Index(low, "maintained by `"); i >= 0 {
		r := backticked(it.Text[i:])
		if len(r) > 0 {
			return fmt.Sprintf("%s of %s: no node %q maintains it (nodes: %s)", what, n.ID, r[0], strings.Join(g.ids(n), ", "))
		}
	}
	return ""
}

func (g *Graph) ids(except *Node) []string {
	var out []string
	for _, p := range g.Nodes {
		if p != except {
			out = append(out, p.ID)
		}
	}
	sort.Strings(out)
	return out
}

// Nearest returns the candidate closest to s within a small edit
// distance (not s itself), or "": for did-you-mean.
func Nearest(s string, cands []string) string { return nearest(s, cands) }

func nearest(s string, cands []string) string {
	best, bestD := "", 3
	limit := 1
	if len(s) >= 6 {
		limit = 2
	}
	for _, c := range cands {
		if c == s {
			continue
		}
		if d := diag.EditDistance(strings.ToLower(s), strings.ToLower(c)); d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// order drops the edges that close a cycle (reporting each), computes
// heights and sorts nodes by (height, id) and edges by their
// subscriber's place.
func (g *Graph) order() diag.List {
	var diags diag.List
	sort.Slice(g.Nodes, func(i, j int) bool { return g.Nodes[i].ID < g.Nodes[j].ID })
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	drop := map[*Edge]bool{}
	var visit func(id string)
	visit = func(id string) {
		color[id] = grey
		stack = append(stack, id)
		for _, e := range g.In(id) {
			if drop[e] {
				continue
			}
			switch color[e.Producer] {
			case grey:
				i := len(stack) - 1
				for stack[i] != e.Producer {
					i--
				}
				path := append([]string{}, stack[i:]...)
				path = append(path, e.Producer)
				for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
					path[l], path[r] = path[r], path[l]
				}
				n := g.byID[e.Subscriber]
				diags.Errorf(n.Spec.File, e.pos, CodeCycle,
					"input %q of %s closes a cycle: %s (each node would wait on itself)", e.Input, n.ID, strings.Join(path, " → "))
				drop[e] = true
			case white:
				visit(e.Producer)
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
	}
	for _, n := range g.Nodes {
		if color[n.ID] == white {
			visit(n.ID)
		}
	}
	var kept []*Edge
	for _, e := range g.Edges {
		if !drop[e] {
			kept = append(kept, e)
		}
	}
	g.Edges = kept
	var height func(n *Node) int
	done := map[string]bool{}
	height = func(n *Node) int {
		if done[n.ID] {
			return n.Height
		}
		h := 0
		for _, e := range g.In(n.ID) {
			h = max(h, height(g.byID[e.Producer])+1)
		}
		n.Height, done[n.ID] = h, true
		return h
	}
	for _, n := range g.Nodes {
		height(n)
	}
	sort.SliceStable(g.Nodes, func(i, j int) bool {
		a, b := g.Nodes[i], g.Nodes[j]
		if a.Height != b.Height {
			return a.Height < b.Height
		}
		return a.ID < b.ID
	})
	place := map[string]int{}
	for i, n := range g.Nodes {
		place[n.ID] = i
	}
	sort.SliceStable(g.Edges, func(i, j int) bool {
		a, b := g.Edges[i], g.Edges[j]
		if place[a.Subscriber] != place[b.Subscriber] {
			return place[a.Subscriber] < place[b.Subscriber]
		}
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		if a.Producer != b.Producer {
			return a.Producer < b.Producer
		}
		return a.Facet < b.Facet
	})
	return diags
}
