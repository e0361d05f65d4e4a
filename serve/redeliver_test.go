package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// feedRender folds events' ids into the feed's truth (failing while fail
// is set) and counts them for the tally.
type feedRender struct{ fail *bool }

func (f feedRender) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if req.Node.ID == "tally" {
		seen, _ := req.Inputs["seen"].([]any)
		return &reconcile.Answer{Truth: map[string]any{"count": len(seen)}}, nil
	}
	if *f.fail {
		return &reconcile.Answer{}, errors.New("the feed is down")
	}
	ids := map[string]bool{}
	if p, ok := req.Prior.(map[string]any); ok {
		for _, id := range p["seen"].([]any) {
			ids[id.(string)] = true
		}
	}
	for _, e := range req.Events {
		ids[e.(map[string]any)["id"].(string)] = true
	}
	var seen []any
	for id := range ids {
		seen = append(seen, id)
	}
	sort.Slice(seen, func(i, j int) bool { return seen[i].(string) < seen[j].(string) })
	return &reconcile.Answer{Truth: map[string]any{"seen": seen}}, nil
}

// A gateway render that fails keeps its events: the next drain delivers
// them again (before the new ones), across a restart, until the gateway
// renders; then they are not delivered again.
func TestFailedGatewayEventsAreRedelivered(t *testing.T) {
	g, diags, err := graph.Load("testdata/redeliver")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fail := false
	var outcomes []*Outcome
	open := func() *Server {
		s, err := New(Options{Graph: g, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
			Drain:   drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return feedRender{&fail}, nil }, nil),
			Drained: func(o *Outcome) { outcomes = append(outcomes, o) }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	post := func(id string) {
		if _, _, err := s.Trigger("feed", []byte(fmt.Sprintf(`{"id":%q}`, id))); err != nil {
			t.Fatal(err)
		}
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	truth := func() string {
		v, ok, err := st.Published("feed")
		if err != nil || !ok {
			return fmt.Sprint(err)
		}
		return fmt.Sprint(v.(map[string]any)["seen"])
	}
	post("a")
	fail = true
	post("b")
	post("c")
	if last := outcomes[len(outcomes)-1]; last.Failed != 1 || last.Redelivered != 1 {
		t.Errorf("second failure: %+v", last)
	}
	// each failed drain names the oldest event the feed holds, so a
	// drain that fails on it says which event it is
	for _, o := range outcomes[1:] {
		if fp := o.Held["feed"]; fp == "" || fp != s.q.Held("feed")[0].FP {
			t.Errorf("drain %d failed holding events: held %v, want the feed's oldest held event %s", o.Drain, o.Held, s.q.Held("feed")[0].FP)
		}
	}
	if outcomes[0].Held != nil {
		t.Errorf("a drain that rendered says it holds %v", outcomes[0].Held)
	}
	if got := truth(); got != "[a]" {
		t.Errorf("a failed render changed the truth: %s", got)
	}
	s.Close()
	s = open() // the held events survive a restart
	fail = false
	post("d")
	last := outcomes[len(outcomes)-1]
	if last.Failed != 0 || last.Redelivered != 2 || last.Rendered != 2 || last.Held != nil {
		t.Errorf("recovery: %+v", last)
	}
	if got := truth(); got != "[a b c d]" {
		t.Errorf("truth after recovery: %s", got)
	}
	// Delivered once: a manual wake redelivers nothing, and the feed
	// skips.
	if _, _, err := s.Trigger("feed", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DrainQueued(context.Background()); err != nil {
		t.Fatal(err)
	}
	last = outcomes[len(outcomes)-1]
	if last.Redelivered != 0 || len(last.Receipts) != 1 || last.Receipts[0].Status != receipt.Skipped {
		t.Errorf("after recovery: %+v", last)
	}
	s.Close()
}

// A drain that ends in an error (here the store found damaged as a
// server starts: a node's directory removed while none ran) delivers
// nothing, so the events it took stay held for the next drain, as a
// failed render's do: the same event sent again meanwhile is a duplicate
// of one held, and once the store is repaired the next drain delivers it.
func TestEventsOfADrainThatFailedAreHeld(t *testing.T) {
	g, diags, err := graph.Load("testdata/redeliver")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	dir := t.TempDir()
	fail := false
	var outcomes []*Outcome
	var s *Server
	var st *store.Store
	open := func() {
		if st, err = store.Open(dir); err != nil {
			t.Fatal(err)
		}
		if s, err = New(Options{Graph: g, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
			Drain:   drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return feedRender{&fail}, nil }, nil),
			Drained: func(o *Outcome) { outcomes = append(outcomes, o) }}); err != nil {
			t.Fatal(err)
		}
	}
	post := func(id string) (dup bool) {
		_, dup, err := s.Trigger("feed", []byte(fmt.Sprintf(`{"id":%q}`, id)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
		return dup
	}
	open()
	post("a")
	s.Close()
	if err := os.RemoveAll(filepath.Join(dir, "tally")); err != nil {
		t.Fatal(err)
	}
	open()
	defer func() { s.Close() }()
	post("b")
	if last := outcomes[len(outcomes)-1]; !strings.Contains(last.Error, "damaged") || len(last.Receipts) != 0 {
		t.Fatalf("drain of a damaged store: %+v", last)
	}
	if h := s.q.Held("feed"); len(h) != 1 || !strings.Contains(string(h[0].Event), `"b"`) {
		t.Fatalf("held after a drain that failed: %+v, want event b", h)
	} else if fp := outcomes[len(outcomes)-1].Held["feed"]; fp != h[0].FP {
		t.Errorf("the drain that failed says the feed holds %q, want %s", fp, h[0].FP)
	}
	if !post("b") {
		t.Errorf("event b sent again while held is not a duplicate")
	}
	if _, err := st.RepairAll(map[string]bool{"tally": true}, nil); err != nil {
		t.Fatal(err)
	}
	// The next drain is one of a duplicate of the held event: it
	// delivers the held one.
	if !post("b") {
		t.Errorf("event b sent again while held is not a duplicate")
	}
	last := outcomes[len(outcomes)-1]
	if last.Error != "" || last.Redelivered != 1 || len(s.q.Held("feed")) != 0 {
		t.Errorf("after the repair: %+v, held %v", last, s.q.Held("feed"))
	}
	v, ok, err := st.Published("feed")
	if err != nil || !ok || fmt.Sprint(v.(map[string]any)["seen"]) != "[a b]" {
		t.Errorf("feed's truth after the repair: %v %v %v, want [a b]", v, ok, err)
	}
}
