package render_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// executionGraph writes a world of n responsibilities whose Executions
// run on the interpreter, node k requiring node (k-1)/2 and calling a
// sibling function; node 0 takes a caller input.
func executionGraph(b *testing.B, n int) *graph.Graph {
	b.Helper()
	dir := b.TempDir()
	fn := "---\nname: plus\nkind: function\n---\n\n# Plus\n\n### Parameters\n\n- `x`: a number\n\n### Returns\n\n- `y`: x + 1\n\n### Execution\n\n```prose\nreturn x + 1\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "plus.prose.md"), []byte(fn), 0o644); err != nil {
		b.Fatal(err)
	}
	for k := 0; k < n; k++ {
		id := fmt.Sprintf("n%04d", k)
		in, x := "seed", "seed"
		if k > 0 {
			in = fmt.Sprintf("n%04d", (k-1)/2)
			x = in + ".v"
		}
		src := "---\nname: " + id + "\nkind: responsibility\n---\n\n# " + id + "\n\n### Requires\n\n- `" + in + "`: its truth\n\n### Maintains\n\n- `v`: a number\n\n### Execution\n\n```prose\nlet y = call plus\n  x: " + x + "\nreturn { v: y }\n```\n"
		if err := os.WriteFile(filepath.Join(dir, id+".prose.md"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	g, diags, err := graph.LoadWith(dir, specgraph.New(specgraph.Options{}))
	if err == nil {
		diags = g.Given(diags, func(node, input string) bool { return node == "n0000" && input == "seed" })
	}
	if err != nil || diags.HasErrors() {
		b.Fatal(err, diags)
	}
	return g
}

// BenchmarkExecutionDrain: a cold start of n Execution nodes, each
// render a run; "anew" reads every spec file again for each render and
// keeps no journal (as renders did before they shared the drain's
// graph), "shared" reads through the drain's graph, "journaled" shares
// it and journals each render too.
func BenchmarkExecutionDrain(b *testing.B) {
	for _, n := range []int{10, 100} {
		g := executionGraph(b, n)
		for _, mode := range []string{"anew", "shared", "journaled"} {
			b.Run(fmt.Sprintf("%s/%d", mode, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					state := b.TempDir()
					st, err := store.Open(state)
					if err != nil {
						b.Fatal(err)
					}
					var d *render.Drain
					switch mode {
					case "shared":
						d = &render.Drain{Specs: g.Specs}
					case "journaled":
						d = &render.Drain{Specs: g.Specs, State: state}
					}
					b.StartTimer()
					res, err := reconcile.Drain(context.Background(), reconcile.Options{
						Graph: g, Store: st, MaxParallel: 2,
						Renderer:     func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{Drain: d}, nil },
						CallerInputs: map[string]map[string]any{"n0000": {"seed": 1}},
					})
					if err != nil || res.Rendered != n {
						b.Fatalf("%v: rendered %d of %d", err, res.Rendered, n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
			})
		}
	}
}
