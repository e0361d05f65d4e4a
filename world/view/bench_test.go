package view_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
	"github.com/proselang/prose/world/view"
)

type copyRenderer struct{}

func (copyRenderer) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if len(req.Events) > 0 {
		return &reconcile.Answer{Truth: map[string]any{"v": req.Events[0]}}, nil
	}
	for _, v := range req.Inputs {
		return &reconcile.Answer{Truth: map[string]any{"v": v}}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{}}, nil
}

// world1000 is a 1,000-node world (node k reads node (k-1)/2) drained
// twice, every node rendered each time.
func world1000(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	for k := 0; k < 1000; k++ {
		id := fmt.Sprintf("n%04d", k)
		src := contract(id, "responsibility", fmt.Sprintf("- `n%04d`: the parent's truth", (k-1)/2), "- `v`: a value")
		if k == 0 {
			src = contract(id, "gateway", "", "- `v`: a value")
		}
		if err := os.WriteFile(filepath.Join(dir, id+".prose.md"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		b.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(dir, ".prose", "world"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		if _, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st, MaxParallel: 2,
			Events:   map[string][]any{"n0000": {i}},
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return copyRenderer{}, nil }}); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkView1000: what the world pages ask of the library for a
// 1,000-node world of two drains (no HTML, no HTTP).
func BenchmarkView1000(b *testing.B) {
	dir := world1000(b)
	b.Run("load", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := view.Load(dir, "", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	w, err := view.Load(dir, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("poll-unchanged", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if u, err := w.Poll(); err != nil || !u.Empty() {
				b.Fatal(u, err)
			}
		}
	})
	b.Run("graph", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w.GraphPage()
		}
	})
	b.Run("node", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := w.Node("n0999"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("drain-replay", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			fresh, err := view.Load(dir, "", nil)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			d, err := fresh.Drain(2)
			if err != nil || len(d.Steps) != 1000 {
				b.Fatal(err)
			}
		}
	})
}
