package graph

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// wiringCorpus is ../shared/corpus/openprose-0.15-wiring: upstream's
// golden topologies and the examples only that tree has.
func wiringCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testenv.Corpus015(t, ""), "..", "openprose-0.15-wiring")
	if st, err := os.Stat(filepath.Join(dir, "topologies")); err != nil || !st.IsDir() {
		if testenv.InCI() {
			t.Fatal("../shared/corpus/openprose-0.15-wiring is not present; CI is set, so this test fails rather than skips")
		}
		t.Skip("../shared/corpus/openprose-0.15-wiring is not present")
	}
	return dir
}

type goldenTopology struct {
	Nodes []struct {
		Node string `json:"node"`
	} `json:"nodes"`
	Edges []struct {
		Subscriber, Producer, Facet string
	} `json:"edges"`
}

// upstreamNode finds the node an upstream topology's node id stands for:
// the id without its kind prefix names a node, or its words are a run of
// one node's id words; an instance id (`footprint-alice`) drops its last
// word until one does.
func upstreamNode(g *Graph, id string) *Node {
	_, base, _ := strings.Cut(id, ".")
	for words := strings.Split(base, "-"); len(words) > 0; words = words[:len(words)-1] {
		name := strings.Join(words, "-")
		if n := g.ref(name); n != nil {
			return n
		}
		var found []*Node
		for _, n := range g.Nodes {
			if strings.Contains("-"+n.ID+"-", "-"+name+"-") || strings.Contains("-"+n.Name+"-", "-"+name+"-") {
				found = append(found, n)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
	}
	return nil
}

// Upstream's golden topologies, edge for edge with the facet: every
// project of the wiring corpus that has one. Phantom ingress edges are
// left out; an instance counts as the file it comes from, a key of a
// facet family (`eligible:alice`) as the family (`eligible:<login>`).
// A golden facet that the producer's file never mentions cannot be read
// from the text; it is compared as the whole truth, and logged.
func TestGoldenTopologies(t *testing.T) {
	corpus := wiringCorpus(t)
	goldens, err := filepath.Glob(filepath.Join(corpus, "topologies", "*.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden topologies in %s: %v", corpus, err)
	}
	for _, path := range goldens {
		project := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(project, func(t *testing.T) {
			var top goldenTopology
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &top); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(corpus, "examples", project)
			if _, err := os.Stat(dir); err != nil {
				dir = testenv.Corpus015(t, filepath.Join("examples", project))
			}
			g, diags, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diags.HasErrors() {
				t.Errorf("diagnostics:\n%s", diags)
			}
			want := map[string]bool{}
			for _, e := range top.Edges {
				if strings.HasPrefix(e.Producer, "ingress.") {
					continue
				}
				sub, prod := upstreamNode(g, e.Subscriber), upstreamNode(g, e.Producer)
				if sub == nil || prod == nil {
					t.Errorf("golden edge %s <- %s.%s: no node of the project is its subscriber or producer", e.Subscriber, e.Producer, e.Facet)
					continue
				}
				facet := e.Facet
				for _, f := range prod.Families {
					if stem, _ := Family(f); strings.HasPrefix(facet, stem) {
						facet = f
					}
				}
				if facet != Atomic && !contains(prod.Facets, facet) && !contains(prod.Families, facet) {
					src, _ := os.ReadFile(prod.Path)
					if strings.Contains(string(src), facet) {
						t.Errorf("golden edge %s <- %s.%s: %s mentions %q but the graph does not know it as a facet", e.Subscriber, e.Producer, e.Facet, prod.File, facet)
					}
					t.Logf("golden edge %s <- %s.%s: %s never mentions %q; compared as %s", e.Subscriber, e.Producer, e.Facet, prod.File, facet, Atomic)
					facet = Atomic
				}
				want[sub.ID+" <- "+prod.ID+"."+facet] = true
			}
			got := map[string]bool{}
			for _, e := range g.Edges {
				got[e.Subscriber+" <- "+e.Producer+"."+e.Facet] = true
			}
			for _, k := range sortedKeys(want) {
				if !got[k] {
					t.Errorf("missing edge %s", k)
				}
			}
			for _, k := range sortedKeys(got) {
				if !want[k] {
					t.Errorf("extra edge %s", k)
				}
			}
		})
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
