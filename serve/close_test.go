package serve

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// blockingRender says it started and then renders nothing until its
// context ends; ended is set as it returns.
type blockingRender struct {
	started chan<- struct{}
	ended   *atomic.Bool
}

func (b blockingRender) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	b.started <- struct{}{}
	<-ctx.Done()
	b.ended.Store(true)
	return nil, ctx.Err()
}

// Close called while Run drains stops that drain and returns only after
// Run returned: the queue, the watches and the lock are never closed
// under a drain. The interrupted trigger stays queued, and the server
// refuses to run again.
func TestCloseWhileRunDrains(t *testing.T) {
	g, diags, err := graph.Load("testdata/redeliver")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	started, ended := make(chan struct{}, 1), new(atomic.Bool)
	s, err := New(Options{Graph: g, Store: st,
		Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return blockingRender{started, ended}, nil }, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Trigger("feed", []byte(`{"id":"a"}`)); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()
	<-started // the drain is rendering the feed
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waited for the drain: its render had returned. (Run itself
	// has then left its body; its return reaches this goroutine after.)
	if !ended.Load() {
		t.Fatal("Close returned while Run was still draining")
	}
	if err := <-ran; err != nil {
		t.Errorf("Run after Close: %v", err)
	}
	if err := s.DrainQueued(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("DrainQueued after Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	// The lock is free and the trigger is still queued for the next start.
	st2, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := New(Options{Graph: g, Store: st2,
		Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return feedRender{new(bool)}, nil }, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if d := s2.Depth(); d != 1 {
		t.Errorf("queue depth after the restart: %d, want the 1 interrupted trigger", d)
	}
}
