package serve

import (
	"testing"
	"time"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// feedServer serves testdata/redeliver over the store in dir (a new one
// when dir is ""), its feed rendered by feedRender and the clock stopped
// at the epoch; outcomes are the outcomes of its drains so far. The
// server is closed when the test ends.
func feedServer(t *testing.T, dir string) (s *Server, outcomes *[]*Outcome) {
	t.Helper()
	g, diags, err := graph.Load("testdata/redeliver")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	outcomes = new([]*Outcome)
	s, err = New(Options{Graph: g, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
		Drain:   drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return feedRender{new(bool)}, nil }, nil),
		Drained: func(o *Outcome) { *outcomes = append(*outcomes, o) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, outcomes
}
