package drain_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proselang/prose/run"
	"github.com/proselang/prose/world/graph"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/drain"
)

// FuzzParse: any ### Drains section reads without a panic, and a parsed
// one has at least one drain.
func FuzzParse(f *testing.F) {
	f.Add("bind:\n  \"*\": exec:./bus\ndrains:\n  - events: {g: {id: 1}}\n    rendered: all\n")
	f.Add("drains:\n  - ticks: [a]\n    skipped: [a]\n    programs: 0\n")
	f.Add("drains: [{fail: x, failed: [x]}]\n")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: t\nkind: test\nsubject: s\n---\n\n### Drains\n\n```yaml\n" + body + "\n```\n"
		sp, _ := spec.Parse("t.test.prose.md", []byte(src))
		w, _ := drain.ParseTest(sp)
		if w != nil && len(w.Drains) == 0 {
			t.Errorf("a test with no drain: %q", body)
		}
	})
}

// FuzzParseBindings: any bindings read without a panic, and what renders
// each node does not depend on the order they were given in.
func FuzzParseBindings(f *testing.F) {
	g := fuzzGraph(f)
	f.Add("feed=exec:./feed\nboard.score=exec:./s\nboard.rank=exec:./r")
	f.Add("*=llm:m\nboard.rank=std/x.prose.md\nboard.score=llm")
	f.Add("board=exec: sh x\nfeed=llm\nboard.score=exec:")
	f.Fuzz(func(t *testing.T, text string) {
		as := slots(strings.Split(text, "\n")...)
		rev := append([]run.Assignment(nil), as...)
		slices.Reverse(rev)
		a, errA := drain.ParseBindings(g, "--slot", as)
		b, errB := drain.ParseBindings(g, "--slot", rev)
		if errA != nil || errB != nil {
			return
		}
		// The last of two bindings of one node wins: the order of those
		// matters, as it does on a command line.
		seen := map[string]bool{}
		for _, x := range as {
			if !strings.Contains(x.Name, ".") && seen[x.Name] {
				return
			}
			seen[x.Name] = true
		}
		pa, errA := drain.Prepare(g, a, drain.Config{})
		pb, errB := drain.Prepare(g, b, drain.Config{})
		if (errA == nil) != (errB == nil) {
			t.Fatalf("prepared in one order only: %v / %v", errA, errB)
		}
		if errA != nil {
			return
		}
		for _, n := range g.Nodes {
			if x, y := pa.Binding(n), pb.Binding(n); x != y && !sameCallees(as, n.ID) {
				t.Errorf("%s: %q, reversed %q", n.ID, x, y)
			}
		}
	})
}

// sameCallees reports whether one callee of node is bound more than once
// (a list slot's elements, whose order is theirs).
func sameCallees(as []run.Assignment, node string) bool {
	seen := map[string]bool{}
	for _, a := range as {
		if strings.HasPrefix(a.Name, node+".") {
			if seen[a.Name] {
				return true
			}
			seen[a.Name] = true
		}
	}
	return false
}

func fuzzGraph(f *testing.F) *graph.Graph {
	dir := f.TempDir()
	for name, text := range board {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		f.Fatal(err)
	}
	return g
}
