package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proselang/prose/spec"
)

// Formats are the names Format accepts.
var Formats = []string{"text", "json", "dot", "mermaid"}

// Format prints g as text, json, dot or mermaid.
func (g *Graph) Format(format string) ([]byte, error) {
	switch format {
	case "", "text":
		return g.text(), nil
	case "json":
		return g.json()
	case "dot":
		return g.dot(), nil
	case "mermaid":
		return g.mermaid(), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

type jsonNode struct {
	ID           string   `json:"id"`
	Name         string   `json:"name,omitempty"`
	Kind         string   `json:"kind"`
	File         string   `json:"file"`
	Facets       []string `json:"facets"`
	Wake         string   `json:"wake"`
	Height       int      `json:"height"`
	CallerInputs []string `json:"caller_inputs,omitempty"`
	// Routes are a gateway's HTTP routes: "POST /inbox/deliver".
	Routes []string `json:"routes,omitempty"`
}

type jsonEdge struct {
	Subscriber string `json:"subscriber"`
	Input      string `json:"input"`
	Producer   string `json:"producer"`
	Facet      string `json:"facet"`
	Rule       string `json:"rule"`
	// Why quotes the words that decided the edge (--explain's text).
	Why  string `json:"why,omitempty"`
	Line int    `json:"line"`
}

type jsonGraph struct {
	Nodes       []jsonNode `json:"nodes"`
	Edges       []jsonEdge `json:"edges"`
	EntryPoints []string   `json:"entry_points"`
	// Acyclic is Forme's postcondition: false when an item closed a
	// cycle (its edge is reported and left out of Edges).
	Acyclic bool `json:"acyclic"`
}

func (g *Graph) json() ([]byte, error) {
	doc := jsonGraph{Nodes: []jsonNode{}, Edges: []jsonEdge{}, EntryPoints: g.EntryPoints(), Acyclic: !g.Cyclic}
	for _, n := range g.Nodes {
		doc.Nodes = append(doc.Nodes, jsonNode{n.ID, n.Name, string(n.Kind), n.File, n.allFacets(), n.Wake, n.Height, n.CallerInputs, n.routeNames()})
	}
	for _, e := range g.Edges {
		doc.Edges = append(doc.Edges, jsonEdge{e.Subscriber, e.Input, e.Producer, e.Facet, e.Rule, e.Why, e.Pos.Line})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(doc)
	return buf.Bytes(), err
}

func (g *Graph) text() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "nodes (%d):\n", len(g.Nodes))
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s  %s  %s  wake: %s", n.Label(), n.Kind, n.File, n.Wake)
		if fs := n.allFacets(); len(fs) > 0 {
			fmt.Fprintf(&b, "  facets: %s", strings.Join(fs, ", "))
		}
		if len(n.CallerInputs) > 0 {
			fmt.Fprintf(&b, "  caller inputs: %s", strings.Join(n.CallerInputs, ", "))
		}
		if rs := n.routeNames(); len(rs) > 0 {
			fmt.Fprintf(&b, "  routes: %s", strings.Join(rs, ", "))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "edges (%d):\n", len(g.Edges))
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "  %s.%s <- %s.%s  (%s, line %d)\n", e.Subscriber, e.Input, e.Producer, e.Facet, e.Rule, e.Pos.Line)
	}
	fmt.Fprintf(&b, "entry points: %s\n", strings.Join(g.EntryPoints(), ", "))
	return b.Bytes()
}

// label is a part's name on a picture: the facet, or the input when the
// whole truth is subscribed.
func label(e *Edge) string {
	if e.Facet == Atomic {
		return Atomic
	}
	return e.Facet
}

func (g *Graph) dot() []byte {
	var b bytes.Buffer
	b.WriteString("digraph world {\n  rankdir=LR;\n")
	for _, n := range g.Nodes {
		shape := "box"
		if n.Kind == spec.KindGateway {
			shape = "cds"
		}
		fmt.Fprintf(&b, "  %q [shape=%s, label=%q];\n", n.ID, shape, n.Label())
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "  %q -> %q [label=%q];\n", e.Producer, e.Subscriber, label(e))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// mermaid and dot name each node by its Label: its id, and the name
// its file gives it when that differs (an id: in the front matter).
func (g *Graph) mermaid() []byte {
	var b bytes.Buffer
	b.WriteString("flowchart TD\n")
	ids := map[string]string{}
	for i, n := range g.Nodes {
		ids[n.ID] = fmt.Sprintf("n%d", i)
		open, closing := "[", "]"
		if n.Kind == spec.KindGateway {
			open, closing = "[/", "/]"
		}
		fmt.Fprintf(&b, "  %s%s\"%s\"%s\n", ids[n.ID], open, mermaidText(n.Label()), closing)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "  %s -->|%s| %s\n", ids[e.Producer], mermaidText(label(e)), ids[e.Subscriber])
	}
	return b.Bytes()
}

// mermaidText escapes what Mermaid would read as syntax.
func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "|", "#124;", "<", "#lt;", ">", "#gt;")
	return r.Replace(s)
}

// allFacets are n's facets and facet families, as a picture names them.
func (n *Node) allFacets() []string {
	return append(append([]string{}, n.Facets...), n.Families...)
}

// routeNames are n's routes as written ("POST /inbox/deliver").
func (n *Node) routeNames() []string {
	var out []string
	for _, r := range n.routes {
		out = append(out, r.String())
	}
	return out
}
