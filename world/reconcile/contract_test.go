package reconcile_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

const contractBase = `---
name: summary
kind: responsibility
id: 067NC4KG01RG50R40M30E20918
---

# Summary

### Goal

A short summary.

### Requires

- ` + "`counts`" + `: the tallies from ` + "`feed`" + `,
  wrapped over two lines.

### Maintains

- ` + "`total`" + `: the sum of the tallies

### Continuity

- input-driven

### Execution

` + "```prose" + `
let t = counts
if t:
  return { total: t }
return { total: 0 }
` + "```" + `

### Notes

Written for the suite.
`

func contractOf(t *testing.T, src, binding string) string {
	t.Helper()
	g := writeProject(t, map[string]string{
		"summary.prose.md": src,
		"feed.prose.md":    contract("feed", "gateway", "", "- `counts`: tallies"),
	})
	n := g.Nodes[len(g.Nodes)-1] // the subscriber, after its producer
	c, err := reconcile.Contract(n, binding)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Whitespace, comments, Notes, the title and the Goal never move a
// contract; Requires, Maintains, Continuity, Execution, the id and the
// binding do (each section tested).
func TestContractFingerprintSections(t *testing.T) {
	base := contractOf(t, contractBase, "exec:./r.sh")
	for _, tc := range []struct {
		name     string
		old, new string
		binding  string
		moves    bool
	}{
		{"a blank line (U00)", "### Maintains\n", "### Maintains\n\n", "", false},
		{"trailing spaces", "the sum of the tallies", "the sum of the tallies   ", "", false},
		{"a rewrapped item", "`feed`,\n  wrapped over two lines.", "`feed`, wrapped\n  over   two lines.", "", false},
		{"an HTML comment", "- input-driven", "- input-driven <!-- keep it so -->", "", false},
		{"a comment line in the Execution", "let t = counts\n", "let t = counts\n# read the tallies\n\n", "", false},
		{"### Notes", "Written for the suite.", "Rewritten, at length.", "", false},
		{"the title", "# Summary", "# Tally Summary", "", false},
		{"### Goal", "A short summary.", "A shorter summary.", "", false},
		{"the name, with an id", "name: summary", "name: tally-summary", "", false},
		{"### Requires", "wrapped over two lines.", "wrapped over three lines.", "", true},
		{"### Maintains", "the sum of the tallies", "the sum of every tally", "", true},
		{"### Continuity", "- input-driven", "- self-driven", "", true},
		{"### Execution", "return { total: 0 }", "return { total: 1 }", "", true},
		{"the Execution's indentation", "  return { total: t }\nreturn", "  return { total: t }\n  return", "", true},
		{"the id", "id: 067NC4KG01RG50R40M30E20918", "id: 067NC4KG01RG50R40M30E20919", "", true},
		{"the binding", "", "", "exec:./other.sh", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := contractBase
			if tc.old != "" {
				if !strings.Contains(src, tc.old) {
					t.Fatalf("the base has no %q", tc.old)
				}
				src = strings.Replace(src, tc.old, tc.new, 1)
			}
			binding := "exec:./r.sh"
			if tc.binding != "" {
				binding = tc.binding
			}
			if moved := contractOf(t, src, binding) != base; moved != tc.moves {
				t.Errorf("moved %v, want %v", moved, tc.moves)
			}
		})
	}
}

// U00: a whitespace and comment edit of a project's files moves no
// contract: the next drain renders nothing; a Requires edit re-renders
// its node alone.
func TestWhitespaceEditRendersNothing(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"feed.prose.md": contract("feed", "gateway", "", "- `counts`: tallies"),
		"sum.prose.md":  contract("sum", "responsibility", "- `counts`: the tallies of `feed`", "- `seen`: inputs"),
	}
	write := func() *graph.Graph {
		t.Helper()
		for name, src := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, diags, err := graph.Load(dir)
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		return g
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &echo{reqs: map[string]*reconcile.Request{}}
	drain := func(g *graph.Graph, events map[string][]any) int {
		t.Helper()
		res, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st, Events: events,
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rendered
	}
	if n := drain(write(), map[string][]any{"feed": {map[string]any{"counts": 1}}}); n != 2 {
		t.Fatalf("cold start rendered %d", n)
	}
	files["sum.prose.md"] = strings.Replace(files["sum.prose.md"], "### Maintains\n", "### Maintains  \n\n<!-- the sum's fields -->\n", 1) + "\n\n"
	files["feed.prose.md"] = strings.Replace(files["feed.prose.md"], "# feed\n", "# Feed, retitled\n\n### Notes\n\nA note.\n", 1)
	if n := drain(write(), nil); n != 0 {
		t.Errorf("a whitespace, comment, title and Notes edit rendered %d nodes", n)
	}
	files["sum.prose.md"] = strings.Replace(files["sum.prose.md"], "the tallies of", "every tally of", 1)
	r.reqs = map[string]*reconcile.Request{}
	if n := drain(write(), nil); n != 1 || r.reqs["sum"] == nil {
		t.Errorf("a Requires edit rendered %d nodes, want sum alone", n)
	}
}
