package reconcile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
)

// contractText is a responsibility whose contract holds every section
// that counts.
const contractText = "---\nname: summary\nkind: responsibility\n---\n\n# Summary\n\n### Requires\n\n- `counts`: the tallies\n\n### Maintains\n\n- `total`: the sum\n\n### Continuity\n\n- input-driven\n\n### Execution\n\n```prose\nreturn {total: 1}\n```\n"

// contractByObject is the contract fingerprint as its definition says:
// canon.Fingerprint of {"id", "kind", "sections", "binding"}.
func contractByObject(n *graph.Node, binding string) (string, error) {
	secs := []any{}
	for _, s := range n.Spec.Sections {
		if !ContractSection(s.Heading) {
			continue
		}
		body := markdownText(s.Body)
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Heading)), "execution") {
			body = codeText(s.Body)
		}
		secs = append(secs, map[string]any{"heading": strings.Join(strings.Fields(s.Heading), " "), "body": body})
	}
	return canon.Fingerprint(map[string]any{"id": n.ID, "kind": string(n.Kind), "sections": secs, "binding": binding}, nil)
}

// TestContractIsTheCanonicalObject: Contract, which writes the
// canonical form itself, is canon.Fingerprint of the contract's object,
// for the nodes of the test worlds and for texts that need escapes.
func TestContractIsTheCanonicalObject(t *testing.T) {
	var nodes []*graph.Node
	for _, w := range []string{"suite", "onegraph", "bus", "digest", "prior"} {
		g, _, err := graph.Load(filepath.Join("..", "..", "testdata", "world", w))
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, g.Nodes...)
	}
	dir := t.TempDir()
	odd := strings.Replace(contractText, "the sum", "the \"sum\" \\ of\tthe tallies \u00e9\U0001F600 <b>&</b>", 1)
	if err := os.WriteFile(filepath.Join(dir, "summary.prose.md"), []byte(odd), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	nodes = append(nodes, g.Nodes...)
	if len(nodes) < 10 {
		t.Fatalf("only %d nodes", len(nodes))
	}
	for _, n := range nodes {
		for _, binding := range []string{"", `exec:echo '{"v": 1}'`, "llm:m\x01"} {
			got, err := Contract(n, binding)
			if err != nil {
				t.Fatal(err)
			}
			want, err := contractByObject(n, binding)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s, binding %q: Contract %s, the object's fingerprint %s", n.ID, binding, got, want)
			}
		}
	}
}

// shapeByObject is a node's shape as its definition says:
// canon.Fingerprint of {"edges": [[EDGE, [IMMATERIAL...]]...]}.
func shapeByObject(g *graph.Graph, n *graph.Node) (string, error) {
	var parts []any
	for _, e := range g.In(n.ID) {
		imm := []any{}
		for _, f := range Immaterial(g, g.Node(e.Producer), e.Facet) {
			imm = append(imm, f)
		}
		parts = append(parts, []any{EdgeKey(e), imm})
	}
	return canon.Fingerprint(map[string]any{"edges": parts}, nil)
}

// TestShapeIsTheCanonicalObject: shape, which writes the canonical form
// itself, is canon.Fingerprint of the shape's object, for every node of
// the test worlds (edges with and without immaterial fields, and none).
func TestShapeIsTheCanonicalObject(t *testing.T) {
	edges, immaterial := 0, 0
	for _, w := range []string{"suite", "onegraph", "bus", "digest", "prior"} {
		g, _, err := graph.Load(filepath.Join("..", "..", "testdata", "world", w))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Nodes {
			for _, e := range g.In(n.ID) {
				edges++
				immaterial += len(Immaterial(g, g.Node(e.Producer), e.Facet))
			}
			want, err := shapeByObject(g, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(g, n); got != want {
				t.Errorf("%s: shape %s, the object's fingerprint %s", n.ID, got, want)
			}
		}
	}
	if edges == 0 || immaterial == 0 {
		t.Fatalf("the test worlds have %d edges, %d immaterial fields: not enough to compare", edges, immaterial)
	}
}
