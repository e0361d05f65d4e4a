package reconcile_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// A fan-in of several producers, one of which gives several parts, reads
// that producer as an object of its parts: its parts were written under
// one key, the last one read in place of the others.
func TestFanInProducerOfSeveralParts(t *testing.T) {
	g := writeProject(t, map[string]string{
		"orders.prose.md": contract("orders", "responsibility", "", "- `total` (number): the sum\n- `count` (integer): how many"),
		"feed.prose.md":   contract("feed", "responsibility", "", "- `items`: the items"),
		"alert.prose.md":  contract("alert", "responsibility", "- `x`: the `total` and `count` of `orders`, and `feed`", "- `seen`: what it was given"),
	})
	if got := len(g.In("alert")); got != 3 {
		t.Fatalf("alert has %d edges, want 3", got)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &seen{reqs: map[string]*reconcile.Request{}, answers: map[string]any{
		"orders": map[string]any{"total": 5, "count": 2},
		"feed":   map[string]any{"items": []any{1}},
		"alert":  map[string]any{"seen": true},
	}}
	if _, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}); err != nil {
		t.Fatal(err)
	}
	req := r.reqs["alert"]
	if req == nil {
		t.Fatal("alert did not render")
	}
	want := map[string]any{"x": map[string]any{"orders": map[string]any{"total": 5, "count": 2}, "feed": map[string]any{"items": []any{1}}}}
	if got := normalize(t, req.Inputs); !reflect.DeepEqual(got, normalize(t, want)) {
		t.Errorf("inputs %v, want %v", got, normalize(t, want))
	}
}
