package serve

import (
	"strings"
	"testing"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// A server drains its graph through a prepared drain of that graph: New
// refuses none, and one prepared for another graph, before it locks the
// state directory (a second New of the same state then succeeds).
func TestNewRefusesADrainOfAnotherGraph(t *testing.T) {
	load := func() *graph.Graph {
		g, diags, err := graph.Load("testdata/redeliver")
		if err != nil || diags.HasErrors() {
			t.Fatalf("load: %v %s", err, diags)
		}
		return g
	}
	g, other := load(), load()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*drain.Prepared{nil, drain.Given(other, nil, nil)} {
		if _, err := New(Options{Graph: g, Store: st, Drain: d}); err == nil || !strings.Contains(err.Error(), "Options.Drain") {
			t.Fatalf("New with Drain %v: %v, want a refusal naming Options.Drain", d, err)
		}
	}
	s, err := New(Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
