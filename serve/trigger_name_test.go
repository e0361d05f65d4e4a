package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

type lastEvent struct{}

func (lastEvent) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{Truth: req.Events[len(req.Events)-1]}, nil
}

// A trigger names a node by its id or its name; either wakes the node
// kept under its id.
func TestTriggerByIDOrName(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: feed\nkind: gateway\nid: 067NC4KG01RG50R40M30E20918\n---\n\n# Feed\n\n### Maintains\n\n- `n`: a number\n"
	if err := os.WriteFile(filepath.Join(dir, "feed.prose.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Graph: g, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
		Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return lastEvent{}, nil }, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, name := range []string{"feed", "067NC4KG01RG50R40M30E20918"} {
		if _, _, err := s.Trigger(name, []byte(`{"n": `+string(rune('1'+i))+`}`)); err != nil {
			t.Fatalf("trigger %s: %v", name, err)
		}
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := st.Receipts("067NC4KG01RG50R40M30E20918")
	if err != nil || len(rs) != 2 {
		t.Fatalf("receipts of the id: %d (%v), want 2", len(rs), err)
	}
	if v, ok, _ := st.Published("feed"); ok {
		t.Errorf("a node kept under its name: %v", v)
	}
}
