package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// startServer makes a Server of the project in dir over the state
// directory state, as prose serve does at start (the graph loaded, then
// the server made); outs collects its drains' outcomes.
func startServer(t *testing.T, dir, state string, outs chan<- *Outcome) *Server {
	t.Helper()
	load := func(specs *specgraph.Graph) (*Reloaded, error) {
		g, diags, err := graph.LoadWith(dir, specs)
		if err != nil {
			return nil, err
		}
		if diags.HasErrors() {
			return nil, errors.New(strings.TrimSpace(diags.Errors().String()))
		}
		return &Reloaded{Graph: g, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return constant{}, nil }, nil)}, nil
	}
	first, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Graph: first.Graph, Drain: first.Drain, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
		Reload: load, Drained: func(o *Outcome) { outs <- o }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A contract edited while no server ran is acted on as the next server
// starts: its first Run finds the node stale and drains it, with no event
// and no trigger. A start with nothing edited queues no drain.
func TestEditWhileStoppedRendersAtStart(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	put(t, dir, "note.prose.md", noteSpec)
	outs := make(chan *Outcome, 8)

	// The first serve of a state directory never drained queues nothing
	// as it starts (Run given an ended context returns once it has
	// looked), drains once for a wake, and stops.
	s := startServer(t, dir, state, outs)
	ended, end := context.WithCancel(context.Background())
	end()
	if err := s.Run(ended); err != nil {
		t.Fatal(err)
	}
	if d := s.Depth(); d != 0 || len(s.StartStale()) != 1 {
		t.Fatalf("the start of a world never drained: %d queued, stale %+v; want nothing queued, note new", d, s.StartStale())
	}
	if _, _, err := s.Trigger("note", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DrainQueued(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := <-outs; o.Rendered != 1 {
		t.Fatalf("the first drain rendered %d, want 1", o.Rendered)
	}
	s.Close()

	// Edited while nothing runs.
	put(t, dir, "note.prose.md", noteSpec+"- `items`: what was reviewed\n")

	s = startServer(t, dir, state, outs)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	var o *Outcome
	select {
	case o = <-outs:
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("no drain after a start whose contract had moved")
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if !o.Edited || o.Rendered != 1 || len(o.Triggers) != 0 || o.Error != "" || len(o.Receipts) != 1 || o.Receipts[0].Node != "note" {
		t.Fatalf("the start's drain: %+v, want an edited drain that rendered note", o)
	}
	if got := s.StartStale(); len(got) != 1 || got[0].Node != "note" || !strings.Contains(got[0].Why, "contract") {
		t.Errorf("StartStale = %+v, want note, its contract", got)
	}
	st := s.Store()
	r, err := st.Last("note")
	if err != nil || r.Wake.Source != "boot" {
		t.Errorf("note's last receipt %+v (%v): want one woken by its contract (boot)", r, err)
	}
	s.Close()

	// Started again with nothing edited: nothing is queued. Run is given
	// an ended context, so it returns once it has looked and drained what
	// was queued (a drain it took would stay queued, interrupted).
	s = startServer(t, dir, state, outs)
	defer s.Close()
	done, stop := context.WithCancel(context.Background())
	stop()
	if err := s.Run(done); err != nil {
		t.Fatal(err)
	}
	if d := s.Depth(); d != 0 {
		t.Errorf("a start with nothing stale queued %d entries", d)
	}
	if got := s.StartStale(); got != nil {
		t.Errorf("StartStale = %+v, want none", got)
	}
	select {
	case o := <-outs:
		t.Errorf("a drain %+v at a start with nothing stale", o)
	default:
	}
}
