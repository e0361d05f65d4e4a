package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/spec"
)

// upstreamTrees are the folders of upstream's trees a lint step could be
// pointed at: each tree whole, its smoke fixtures and each example
// project.
func upstreamTrees(t *testing.T) []string {
	root := testenv.Corpus015(t, "")
	corpus := filepath.Dir(root)
	dirs := []string{root, filepath.Join(root, "smoke"), filepath.Join(corpus, "openprose-0.11")}
	for _, tree := range []string{root, filepath.Join(corpus, "openprose-0.15-wiring")} {
		es, err := os.ReadDir(filepath.Join(tree, "examples"))
		if err != nil {
			if tree == root || testenv.InCI() {
				t.Fatal(err)
			}
			continue
		}
		for _, e := range es {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(tree, "examples", e.Name()))
			}
		}
	}
	return dirs
}

// maintained lists, for each name a responsibility or gateway of dir
// maintains (a field or a facet of its Maintains, read from every file
// and every inline `##` node of it), the files that do: read from the
// specs alone, apart from the graph.
func maintained(t *testing.T, dir string) map[string][]string {
	files, err := walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		s, _, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if s == nil || s.Kind != "responsibility" && s.Kind != "gateway" {
			continue
		}
		for _, sp := range append([]*spec.Spec{s}, s.Nodes...) {
			if sp.Kind != "responsibility" && sp.Kind != "gateway" {
				continue
			}
			for _, o := range sp.Outputs {
				out[o.Name] = append(out[o.Name], f+"#"+sp.Name)
			}
		}
	}
	return out
}

// No upstream tree gets a graph/unmaintained error for an input that a
// responsibility or gateway of the same folder maintains, inline `##`
// nodes included: such an error is a wiring miss, not a finding. Nor is
// a tree of several projects wired as one (a doubled id).
func TestUpstreamNoFalseUnmaintained(t *testing.T) {
	for _, dir := range upstreamTrees(t) {
		have := maintained(t, dir)
		diags, err := Lint(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diags {
			if d.Code == "graph/duplicate-id" {
				t.Errorf("%s: the tree's projects wired as one: %s", dir, d)
			}
		}
		if len(diags) == 0 {
			continue
		}
		g, _, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range g.Unresolved {
			if u.Why != CodeUnmaintained {
				continue
			}
			var others []string
			for _, by := range have[u.Item.Name] {
				if !strings.HasSuffix(by, "#"+g.byID[u.Node].Name) || !strings.HasPrefix(by, g.byID[u.Node].Path+"#") {
					others = append(others, by)
				}
			}
			if len(others) > 0 {
				t.Errorf("%s: %s: input %q of %s is called unmaintained, but %s maintain(s) it", dir, u.Pos, u.Item.Name, u.Node, strings.Join(others, ", "))
			}
		}
	}
}

// The smoke fixtures whose file-level responsibility requires what its
// inline nodes maintain wire to them: no error but the inline nodes' own
// caller inputs.
func TestUpstreamSmokeInlineNodesWire(t *testing.T) {
	g, diags, err := Load(testenv.Corpus015(t, "smoke"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"collector.raw-notes -> smoke-auto-wiring.raw-notes",
		"left.left-note -> smoke-fan-in-wiring.left-note",
		"right.right-note -> smoke-fan-in-wiring.right-note",
	} {
		if !contains(edgeList(g), want) {
			t.Errorf("no edge %s in\n%s", want, strings.Join(edgeList(g), "\n"))
		}
	}
	for _, d := range diags {
		if d.Code == CodeUnmaintained && (strings.Contains(d.Message, "raw-notes") || strings.Contains(d.Message, "-note")) {
			t.Errorf("false finding: %s", d)
		}
	}
	for id, want := range map[string]string{"collector": "subject", "left": "seed", "right": "seed"} {
		n := g.Node(id)
		if n == nil || !n.Inline() || len(n.CallerInputs) != 1 || n.CallerInputs[0] != want {
			t.Errorf("inline node %s: %+v, want caller input %s", id, n, want)
		}
	}
}
