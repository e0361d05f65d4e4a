package temporalserve

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// folding renders testdata/feed: the feed folds its events' ids, the
// tally counts them; renders counts the renders of each node.
type folding struct {
	mu      sync.Mutex
	renders map[string]int
}

func (f *folding) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	f.mu.Lock()
	f.renders[req.Node.ID]++
	f.mu.Unlock()
	if req.Node.ID == "tally" {
		seen, _ := req.Inputs["seen"].([]any)
		return &reconcile.Answer{Truth: map[string]any{"count": len(seen)}}, nil
	}
	return foldSeen(req), nil
}

// foldSeen is the feed's render: the ids of its prior truth and of its
// events, sorted.
func foldSeen(req *reconcile.Request) *reconcile.Answer {
	ids := map[string]bool{}
	if p, ok := req.Prior.(map[string]any); ok {
		for _, id := range p["seen"].([]any) {
			ids[id.(string)] = true
		}
	}
	for _, e := range req.Events {
		ids[e.(map[string]any)["id"].(string)] = true
	}
	seen := []any{}
	for id := range ids {
		seen = append(seen, id)
	}
	sort.Slice(seen, func(i, j int) bool { return seen[i].(string) < seen[j].(string) })
	return &reconcile.Answer{Truth: map[string]any{"seen": seen}}
}

// feedActivities are the activities over testdata/feed and a fresh
// store.
func feedActivities(t *testing.T) (*Activities, *folding, World, *store.Store) {
	t.Helper()
	g, diags, err := graph.Load("testdata/feed")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &folding{renders: map[string]int{}}
	w := World{Project: "testdata/feed", State: st.Dir}
	a := &Activities{Open: func(got World) (*Project, error) {
		return &Project{Graph: g, Store: st, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return f, nil }, nil)}, nil
	}}
	return a, f, w, st
}

func eventEntry(t *testing.T, drain int, js string) serve.Entry {
	t.Helper()
	v, err := canon.Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := canon.Marshal(v)
	fp, _ := canon.Fingerprint(v, nil)
	return serve.Entry{Op: "enq", Drain: drain, Node: "feed", Event: c, FP: fp}
}

// Fire of a node whose commit for this drain is in the store (its worker
// died before reporting it) returns that receipt and renders nothing; the
// next drain's Fire of the same node renders.
func TestFireReturnsTheRecordedCommit(t *testing.T) {
	a, f, w, st := feedActivities(t)
	ctx := context.Background()
	in := DrainIn{World: w, Drain: 1, Entries: []serve.Entry{eventEntry(t, 1, `{"id":"a"}`)}}
	var err error
	if in.Store, err = a.Begin(ctx, in); err != nil || in.Store != 1 {
		t.Fatalf("Begin: %d %v, want store drain 1", in.Store, err)
	}
	pin := in
	pin.Nodes = []string{"feed"}
	plan, err := a.Plan(ctx, pin)
	if err != nil || len(plan.Fire) != 1 || plan.Fire[0] != "feed" || !plan.Render[0] {
		t.Fatalf("Plan: %+v %v, want feed to render", plan, err)
	}
	fin := in
	fin.Node, fin.Seq = "feed", 1
	first, err := a.Fire(ctx, fin)
	if err != nil || first.Ref.Status != receipt.Rendered || first.Done {
		t.Fatalf("Fire: %+v %v, want a new rendered receipt", first, err)
	}
	again, err := a.Fire(ctx, fin)
	if err != nil || !again.Done || again.Ref != first.Ref {
		t.Fatalf("Fire again: %+v %v, want the first commit (%+v), done", again, err, first.Ref)
	}
	if f.renders["feed"] != 1 {
		t.Errorf("feed rendered %d times, want 1", f.renders["feed"])
	}
	if rs, _ := st.Ledger("feed"); len(rs) != 1 {
		t.Errorf("feed's ledger has %d receipts, want 1", len(rs))
	}
	// The tally, one height up, sees the feed's commit.
	fin.Node, fin.Seq = "tally", 2
	if out, err := a.Fire(ctx, fin); err != nil || out.Ref.Status != receipt.Rendered {
		t.Fatalf("Fire tally: %+v %v", out, err)
	}
	if v, _, _ := st.Published("tally"); !sameJSON(v, `{"count":1}`) {
		t.Errorf("tally published %v, want a count of 1", v)
	}

	next := DrainIn{World: w, Drain: 2, Entries: []serve.Entry{eventEntry(t, 2, `{"id":"b"}`)}}
	if next.Store, err = a.Begin(ctx, next); err != nil || next.Store != 2 {
		t.Fatalf("Begin of the next drain: %d %v, want store drain 2", next.Store, err)
	}
	next.Node, next.Seq = "feed", 1
	if out, err := a.Fire(ctx, next); err != nil || out.Done || out.Ref.Status != receipt.Rendered {
		t.Fatalf("Fire of the next drain: %+v %v, want a new render", out, err)
	}
	if f.renders["feed"] != 2 {
		t.Errorf("feed rendered %d times over two drains, want 2", f.renders["feed"])
	}
}

func sameJSON(v any, want string) bool {
	b, err := canon.Marshal(v)
	return err == nil && string(b) == want
}
