package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// lastEventServer serves a project of the one file given, each node
// rendered as the last event it was given, and closes it with the test.
func lastEventServer(t *testing.T, file, src string) (s *Server, st *store.Store, dir string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if st, err = store.Open(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	s, err = New(Options{Graph: g, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
		Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return lastEvent{}, nil }, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, st, dir
}

// A trigger names a node by its id or its name; either wakes the node
// kept under its id.
func TestTriggerByIDOrName(t *testing.T) {
	s, st, _ := lastEventServer(t, "feed.prose.md", "---\nname: feed\nkind: gateway\nid: 067NC4KG01RG50R40M30E20918\n---\n\n# Feed\n\n### Maintains\n\n- `n`: a number\n")
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
	// A misspelt node is no node, with the one it may mean.
	if _, _, err := s.Trigger("fed", nil); !errors.Is(err, ErrNoNode) || !strings.Contains(err.Error(), `no such node "fed"; did you mean feed?`) {
		t.Errorf("trigger fed: %v", err)
	}
}
