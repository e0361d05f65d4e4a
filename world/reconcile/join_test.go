package reconcile_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/recovered"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

type panicking struct{}

func (panicking) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if req.Node.ID == "bad" {
		panic("render bug")
	}
	return &reconcile.Answer{Truth: map[string]any{"x": 1}}, nil
}

// A render that panics ends the drain with an error that keeps the
// panic's stack, and nothing of its level is committed; the process does
// not crash.
func TestRenderPanicIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"good", "bad"} {
		text := "---\nname: " + id + "\nkind: responsibility\n---\n\n# N\n\n### Maintains\n\n- `x`: a value\n"
		if err := os.WriteFile(filepath.Join(dir, id+".prose.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return panicking{}, nil }})
	if err == nil || !strings.Contains(err.Error(), "render bug") {
		t.Fatalf("drain: %v, want the panic as an error", err)
	}
	if st := recovered.StackOf(err); !strings.Contains(string(st), "join_test.go") {
		t.Errorf("the panic's stack is lost:\n%s", st)
	}
	for _, id := range []string{"good", "bad"} {
		if _, ok, _ := st.Published(id); ok {
			t.Errorf("%s was published by a level that panicked", id)
		}
	}
}
