package reconcile

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// bound renders a node as {"v": its inputs, or the gateway's event's id},
// and fails under the binding "bad".
type bound struct{ bad bool }

func (b bound) Render(_ context.Context, rq *Request) (*Answer, error) {
	if b.bad {
		return nil, errors.New("down")
	}
	if len(rq.Events) > 0 {
		return &Answer{Truth: map[string]any{"v": rq.Events[len(rq.Events)-1].(map[string]any)["id"]}}, nil
	}
	return &Answer{Truth: map[string]any{"v": len(rq.Inputs)}}, nil
}

// TestFailedProducerLeavesItsSubscriberSettled: after every node of a
// chain failed several drains in a row (a binding that fails, which moved
// each node's contract), and the binding was put back, a process that
// opens the store finds each node settled by its stale-scan record: its
// producer's receipts since its own last non-failed one all failed, so
// the producer publishes what the node's key was derived from. Before,
// a producer's failure later than the node's last non-failed receipt made
// every later process derive the node's key again, until it rendered.
func TestFailedProducerLeavesItsSubscriberSettled(t *testing.T) {
	dir := t.TempDir()
	if err := testenv.WriteChain(dir, 3); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	stateDir := filepath.Join(dir, ".prose", "world")
	options := func(bad bool) Options {
		st, err := store.Open(stateDir)
		if err != nil {
			t.Fatal(err)
		}
		binding := "good"
		if bad {
			binding = "bad"
		}
		return Options{Graph: g, Store: st,
			Binding:  func(*graph.Node) string { return binding },
			Renderer: func(*graph.Node) (Renderer, error) { return bound{bad: bad}, nil },
		}
	}
	drain := func(bad bool, event string) *Result {
		t.Helper()
		o := options(bad)
		if event != "" {
			o.Events = map[string][]any{"n00000": {map[string]any{"id": event}}}
		}
		res, err := Drain(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := drain(false, "a"); res.Rendered != 3 {
		t.Fatalf("first drain rendered %d of 3", res.Rendered)
	}
	for i := 0; i < 3; i++ {
		if res := drain(true, "b"); res.Failed != 3 {
			t.Fatalf("drain %d under the failing binding: %d failed, want 3", i+2, res.Failed)
		}
	}
	// The binding put back: nothing moved since the first drain.
	if res := drain(false, ""); res.Rendered+res.Failed+res.Skipped != 0 {
		t.Fatalf("the drain after the binding was put back: %+v; want no receipt", res)
	}
	d := newDrainer(options(false))
	if err := d.load(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"n00001", "n00002"} {
		if !d.settled(g.Node(id)) {
			t.Errorf("%s is not settled: a process that opens the store derives its key again", id)
		}
	}
	if res := drain(false, ""); res.Rendered+res.Failed+res.Skipped != 0 {
		t.Fatalf("a later drain: %+v; want no receipt", res)
	}
}
