package reconcile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// benchGraph writes a world of n nodes: a gateway n0000 and n-1
// responsibilities, node k requiring node (k-1)/2 (a binary tree, about
// log2(n) levels).
func benchGraph(b *testing.B, n int) *graph.Graph {
	b.Helper()
	dir := b.TempDir()
	for k := 0; k < n; k++ {
		id := fmt.Sprintf("n%04d", k)
		src := "---\nname: " + id + "\nkind: responsibility\n---\n\n# " + id + "\n\n"
		if k == 0 {
			src = "---\nname: " + id + "\nkind: gateway\n---\n\n# " + id + "\n\n"
		} else {
			src += fmt.Sprintf("### Requires\n\n- `n%04d`: the parent's truth\n\n", (k-1)/2)
		}
		src += "### Maintains\n\n- `v`: a value\n"
		if err := os.WriteFile(filepath.Join(dir, id+".prose.md"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		b.Fatal(err, diags)
	}
	return g
}

func benchOptions(g *graph.Graph, st *store.Store) reconcile.Options {
	const bind = `exec:echo '{"v": 1}'`
	return reconcile.Options{
		Graph: g, Store: st, MaxParallel: 2,
		Binding:  func(*graph.Node) string { return bind },
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return render.Parse(bind) },
	}
}

func drainOrFail(b *testing.B, o reconcile.Options, want int) *reconcile.Result {
	res, err := reconcile.Drain(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Receipts) != want {
		b.Fatalf("%d receipts, want %d", len(res.Receipts), want)
	}
	return res
}

// BenchmarkDrainRendered: a cold start, every node rendered by a program.
func BenchmarkDrainRendered(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g := benchGraph(b, n)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				st, err := store.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res := drainOrFail(b, benchOptions(g, st), n)
				if res.Rendered != n {
					b.Fatalf("rendered %d", res.Rendered)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// BenchmarkDrainSkipped: every node woken by a self tick with an unmoved
// key: each writes a skipped receipt and starts nothing.
func BenchmarkDrainSkipped(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g := benchGraph(b, n)
			st, err := store.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			drainOrFail(b, benchOptions(g, st), n)
			o := benchOptions(g, st)
			for _, nd := range g.Nodes {
				o.Ticks = append(o.Ticks, nd.ID)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := drainOrFail(b, o, n)
				if res.Skipped != n || res.Programs != 0 {
					b.Fatalf("skipped %d, programs %d", res.Skipped, res.Programs)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// BenchmarkQuietDrain1000: nothing moved: the stale scan of 1,000 nodes,
// no receipt written, nothing started.
func BenchmarkQuietDrain1000(b *testing.B) {
	g := benchGraph(b, 1000)
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	drainOrFail(b, benchOptions(g, st), 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		drainOrFail(b, benchOptions(g, st), 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/node")
}
