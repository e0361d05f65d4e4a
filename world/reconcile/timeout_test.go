package reconcile_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// hangs never answers: it returns when its context ends, as a program
// stopped by package render does, and records whether that context had
// a deadline.
type hangs struct {
	mu       sync.Mutex
	deadline map[string]bool
}

func (h *hangs) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	_, ok := ctx.Deadline()
	h.mu.Lock()
	h.deadline[req.Node.ID] = ok
	h.mu.Unlock()
	if req.Node.ID == "quick" {
		return &reconcile.Answer{Truth: map[string]any{"x": 1}}, nil
	}
	<-ctx.Done()
	return &reconcile.Answer{}, errors.New("stopped: " + ctx.Err().Error())
}

func twoNodes(t *testing.T) (*graph.Graph, *store.Store) {
	t.Helper()
	node := func(name string) string {
		return "---\nname: " + name + "\nkind: responsibility\n---\n\n# N\n\n### Maintains\n\n- `x`: a value\n"
	}
	g := writeProject(t, map[string]string{"slow.prose.md": node("slow"), "quick.prose.md": node("quick")})
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	return g, st
}

// A render that never answers fails at the render timeout, naming its
// node and file and the bound; the drain goes on and commits the others.
func TestRenderTimeoutFailsTheRender(t *testing.T) {
	g, st := twoNodes(t)
	r := &hangs{deadline: map[string]bool{}}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st, RenderTimeout: time.Nanosecond,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 1 || res.Failed != 1 {
		t.Fatalf("rendered %d, failed %d; want 1 and 1", res.Rendered, res.Failed)
	}
	rs, err := st.Receipts("slow")
	if err != nil || len(rs) != 1 || rs[0].Status != receipt.Failed {
		t.Fatalf("receipts of slow: %+v (%v)", rs, err)
	}
	for _, want := range []string{"slow.prose.md:", "the render of slow did not finish within the render timeout of 1ns", "--render-timeout", "stopped: context deadline exceeded"} {
		if !strings.Contains(rs[0].Reason, want) {
			t.Errorf("reason %q lacks %q", rs[0].Reason, want)
		}
	}
}

// Options that give no bound bound a render by DefaultRenderTimeout; a
// negative one bounds none.
func TestRenderTimeoutDefault(t *testing.T) {
	for _, c := range []struct {
		timeout  time.Duration
		deadline bool
	}{{0, true}, {-1, false}} {
		g, st := twoNodes(t)
		r := &hangs{deadline: map[string]bool{}}
		o := reconcile.Options{Graph: g, Store: st, RenderTimeout: c.timeout,
			Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
				if n.ID == "slow" {
					return nil, errors.New("not rendered")
				}
				return r, nil
			}}
		if _, err := reconcile.Drain(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if r.deadline["quick"] != c.deadline {
			t.Errorf("RenderTimeout %v: the render's context has a deadline: %v, want %v", c.timeout, r.deadline["quick"], c.deadline)
		}
	}
}
