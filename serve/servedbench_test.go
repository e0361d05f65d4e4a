//go:build linux

package serve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// BenchmarkServedQuietDrain is the quiet drain of a served chain of n
// nodes (world/reconcile's drain benchmarks' chain: a gateway n00000,
// node k requiring node k-1), as prose serve runs it with its files
// watched for changes: the change check (Options.Reload set) and a
// drain in which nothing moved (no event, no tick: no receipt, nothing
// started), and what the server does after a drain (its held events,
// the files the drain read); not the queue's file. The graph is loaded
// once and the store primed by one full drain. It reports the CPU time
// (user and system, rusage) per drain.
//
//	go test ./serve -run '^$' -bench ServedQuietDrain -benchtime 2000x
//
// PROSE_BENCH_PRIMED=DIR keeps the primed chains in DIR and takes them
// from there (priming 10,000 nodes is 10,000 commits): so two builds
// compared side by side drain the same files.
func BenchmarkServedQuietDrain(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := servedChain(b, n)
			ctx := context.Background()
			quiet := func(id int) {
				if r := s.reload(nil); r != "" {
					b.Fatalf("drain %d reloaded: %s", id, r)
				}
				o, err := s.drain(ctx, id, nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(o.Receipts) != 0 {
					b.Fatalf("a quiet drain left %d receipts", len(o.Receipts))
				}
				if err := s.hold(id, nil, o, Holds); err != nil {
					b.Fatal(err)
				}
				afterDrain(s)
			}
			quiet(1) // as a server's first: what a process reads once
			b.ResetTimer()
			start := benchCPU()
			for i := 0; i < b.N; i++ {
				quiet(i + 2)
			}
			cpu := benchCPU() - start
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N), "cpu-µs/drain")
		})
	}
}

// chainTruth renders {"v": 1}.
type chainTruth struct{}

func (chainTruth) Render(context.Context, *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{Truth: map[string]any{"v": 1}}, nil
}

// servedChain serves a primed chain of n nodes in a new directory.
func servedChain(b *testing.B, n int) *Server {
	b.Helper()
	keep := os.Getenv("PROSE_BENCH_PRIMED")
	src := ""
	if keep != "" {
		src = filepath.Join(keep, fmt.Sprint("chain-", n))
		if _, err := os.Stat(filepath.Join(src, ".primed")); err != nil {
			src = ""
		}
	}
	dir := filepath.Join(b.TempDir(), "p")
	if src != "" {
		if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return serveChain(b, dir, false)
	}
	writeChain(b, dir, n)
	serveChain(b, dir, true).Close()
	if err := os.WriteFile(filepath.Join(dir, ".primed"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	if keep != "" {
		os.RemoveAll(filepath.Join(keep, fmt.Sprint("chain-", n)))
		if out, err := exec.Command("cp", "-a", dir, filepath.Join(keep, fmt.Sprint("chain-", n))).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	return serveChain(b, dir, false)
}

// writeChain writes world/reconcile's benchmark chain of n nodes in dir.
func writeChain(b *testing.B, dir string, n int) {
	if err := testenv.WriteChain(dir, n); err != nil {
		b.Fatal(err)
	}
}

// serveChain serves the chain in dir, reloading it as prose serve does;
// prime drains it once first, from an event of the gateway.
func serveChain(b *testing.B, dir string, prime bool) *Server {
	load := func(specs *specgraph.Graph) (*Reloaded, error) {
		g, diags, err := graph.LoadWith(dir, specs)
		if err != nil {
			return nil, err
		}
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s", diags.Errors())
		}
		return &Reloaded{Graph: g, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return chainTruth{}, nil },
			func(*graph.Node) string { return "chain" })}, nil
	}
	r, err := load(nil)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, ".prose", "world"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Options{Graph: r.Graph, Drain: r.Drain, Store: st, Reload: load, MaxParallel: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if prime {
		if _, _, err := s.Trigger("n00000", []byte(`{"id":"prime"}`)); err != nil {
			b.Fatal(err)
		}
		var o *Outcome
		s.o.Drained = func(x *Outcome) { o = x }
		if err := s.DrainQueued(context.Background()); err != nil {
			b.Fatal(err)
		}
		if o == nil || o.Rendered != len(r.Graph.Nodes) || o.Error != "" {
			b.Fatalf("the priming drain: %+v", o)
		}
	}
	return s
}

// benchCPU is the CPU time (user and system) of this process.
func benchCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkServedReload is the reload of a served chain of n nodes
// after one file changed (each iteration edits node n00001's spec and
// reloads): "whole" reads and parses every file again, as a reload did
// before it could take the unchanged files' parses from the graph
// served; "changed" reads the changed file alone. CPU time per reload,
// the graph's loading, wiring and the server's own work included.
//
//	go test ./serve -run '^$' -bench ServedReload -benchtime 20x
func BenchmarkServedReload(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, mode := range []string{"whole", "changed"} {
			b.Run(fmt.Sprint(n, "/", mode), func(b *testing.B) {
				s := servedChain(b, n)
				p := filepath.Join(filepath.Dir(s.graph().Node("n00001").Path), "n00001.prose.md")
				src, err := os.ReadFile(p)
				if err != nil {
					b.Fatal(err)
				}
				reload := func(i int) {
					edited := append(append([]byte(nil), src...), fmt.Sprintf("- `w%d`: another value\n", i%2)...)
					if err := os.WriteFile(p, edited, 0o644); err != nil {
						b.Fatal(err)
					}
					if mode == "whole" {
						s.reusable = false
					}
					if r := s.reload(nil); r != "reloaded" {
						b.Fatalf("reload %d: %q", i, r)
					}
				}
				reload(-1) // the first reads every file: the graph served was read before the watches
				b.ResetTimer()
				start := benchCPU()
				for i := 0; i < b.N; i++ {
					reload(i)
				}
				cpu := benchCPU() - start
				b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms/reload")
			})
		}
	}
}
