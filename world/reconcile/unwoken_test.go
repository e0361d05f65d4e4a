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

// A tick of a gateway that has had no event renders nothing and leaves
// no receipt: the drain says why, where a tick of a node with a truth
// leaves a skipped receipt and is not named.
func TestTickOfGatewayWithoutEventIsSaid(t *testing.T) {
	g := writeProject(t, map[string]string{
		"feed.prose.md": "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `x`: a value\n",
		"calc.prose.md": "---\nname: calc\nkind: responsibility\n---\n\n# Calc\n\n### Maintains\n\n- `y`: a value\n",
	})
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	r := &seen{answers: map[string]any{"feed": map[string]any{"x": 1}, "calc": map[string]any{"y": 2}}}
	drain := func(events map[string][]any, ticks ...string) *reconcile.Result {
		t.Helper()
		r.reqs = map[string]*reconcile.Request{}
		res, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st, Events: events, Ticks: ticks,
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := drain(nil, "feed", "calc")
	why := res.Unwoken["feed"]
	if !strings.Contains(why, "feed is a gateway that has had no event") || len(res.Unwoken) != 1 {
		t.Fatalf("unwoken: %q, want feed said", res.Unwoken)
	}
	// Once it has an event, a tick is a self recheck (skipped).
	drain(map[string][]any{"feed": {map[string]any{"e": 1}}})
	if res := drain(nil, "feed", "calc"); res.Unwoken != nil || res.Skipped != 2 {
		t.Fatalf("after an event: unwoken %q, skipped %d; want none and 2", res.Unwoken, res.Skipped)
	}
}

// failsAbsent fails a render with an absent input, and answers y else.
type failsAbsent struct{}

func (failsAbsent) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if len(req.Absent) > 0 {
		return nil, os.ErrNotExist
	}
	return &reconcile.Answer{Truth: map[string]any{"y": 1}}, nil
}

// A tick of a node whose only render failed on an absent input does
// nothing until the input is published, and the drain says why.
func TestTickOfNodeWaitingOnAbsentInputIsSaid(t *testing.T) {
	g := writeProject(t, map[string]string{
		"feed.prose.md":   "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `x`: a value\n",
		"digest.prose.md": "---\nname: digest\nkind: responsibility\n---\n\n# Digest\n\n### Requires\n\n- `feed`: the feed's truth\n\n### Maintains\n\n- `y`: a value\n",
	})
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	o := reconcile.Options{Graph: g, Store: st, Renderer: func(*graph.Node) (reconcile.Renderer, error) { return failsAbsent{}, nil }}
	if res, err := reconcile.Drain(context.Background(), o); err != nil || res.Failed != 1 {
		t.Fatalf("first drain: %+v %v, want digest failed", res, err)
	}
	o.Ticks = []string{"digest"}
	res, err := reconcile.Drain(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if why := res.Unwoken["digest"]; !strings.Contains(why, "digest has no truth to recheck: its render failed with `feed` (of feed) absent") {
		t.Errorf("unwoken: %q, want digest said", res.Unwoken)
	}
}
