package reconcile_test

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
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// The benchmarks of this file measure what a drain costs beside what it
// does: a chain of n nodes (a gateway n00000, node k requiring node k-1),
// the graph loaded once and the state directory's lock held, as prose
// serve keeps them, the store primed by one full drain. They report the CPU time (user and system, this process
// and the programs it started) per drain and per node of the graph.
//
//	go test ./world/reconcile -run '^$' -bench 'DrainQuiet|DrainOneEvent' -benchtime 20x

var chainSizes = []int{10, 100, 1000, 10000}

// chainProject writes a chain of n nodes in a new directory and returns it.
func chainProject(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := testenv.WriteChain(dir, n); err != nil {
		b.Fatal(err)
	}
	return dir
}

// constTruth renders {"v": 1} without starting anything: the priming
// drain's renderer of every node but the gateway.
type constTruth struct{}

func (constTruth) Render(context.Context, *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{Truth: map[string]any{"v": 1}}, nil
}

// chainOptions renders the gateway by a program (it prints {"v": 1},
// whatever the events) and every other node in process; the binding every
// contract holds is the same for both.
func chainOptions(g *graph.Graph, st *store.Store) reconcile.Options {
	const bind = `exec:echo '{"v": 1}'`
	return reconcile.Options{
		Graph: g, Store: st, MaxParallel: 2,
		Binding: func(*graph.Node) string { return bind },
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
			if n.Kind == "gateway" {
				return render.Parse(bind)
			}
			return constTruth{}, nil
		},
	}
}

// primedChain loads a chain of n nodes and drains it once, so every node
// holds a truth, the gateway from a first event. The primed project is
// copied for each benchmark after the first (priming 10,000 nodes is
// 10,000 commits, each a few fsyncs).
func primedChain(b *testing.B, n int) (*graph.Graph, *store.Store) {
	b.Helper()
	if src := primed[n]; src != "" {
		dir := filepath.Join(b.TempDir(), "p")
		if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return loadPrimed(b, dir)
	}
	dir := chainProject(b, n)
	g, st := loadPrimed(b, dir)
	o := chainOptions(g, st)
	o.Events = map[string][]any{"n00000": {map[string]any{"id": "prime"}}}
	res, err := reconcile.Drain(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	if res.Rendered != n {
		b.Fatalf("the priming drain rendered %d of %d nodes", res.Rendered, n)
	}
	keep, err := os.MkdirTemp("", "prose-chain-")
	if err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", dir, filepath.Join(keep, "p")).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	primed[n] = filepath.Join(keep, "p")
	return g, st
}

// primed holds, by size, a primed chain project to copy (test binary
// lifetime; TestMain removes them).
var primed = map[int]string{}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range primed {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

func loadPrimed(b *testing.B, dir string) (*graph.Graph, *store.Store) {
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		b.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(dir, ".prose", "world"))
	if err != nil {
		b.Fatal(err)
	}
	// As prose serve: the writer lock held for the store's whole life.
	unlock, err := store.Lock(context.Background(), st.Dir, store.LockOptions{Command: "benchmark"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(unlock)
	st.HoldLock()
	return g, st
}

// cpuTime is the CPU time (user and system) of this process and of the
// children it waited for.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// reportCPU reports cpu per drain and per node of the graph.
func reportCPU(b *testing.B, cpu time.Duration, n int) {
	per := float64(cpu.Microseconds()) / float64(b.N)
	b.ReportMetric(per, "cpu-µs/drain")
	b.ReportMetric(per/float64(n), "cpu-µs/node")
}

// warm runs one quiet drain, as a server's first: what a process reads
// once (the store's index) is read before the drains measured.
func warm(b *testing.B, o reconcile.Options) {
	b.Helper()
	if _, err := reconcile.Drain(context.Background(), o); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDrainQuiet: nothing moved: the stale scan alone, no receipt,
// nothing started.
func BenchmarkDrainQuiet(b *testing.B) {
	for _, n := range chainSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g, st := primedChain(b, n)
			o := chainOptions(g, st)
			o.Kept = new(reconcile.Kept)
			warm(b, o)
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				res, err := reconcile.Drain(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Receipts) != 0 {
					b.Fatalf("a quiet drain left %d receipts", len(res.Receipts))
				}
			}
			reportCPU(b, cpuTime()-start, n)
		})
	}
}

// BenchmarkDrainOneEvent: one new event for the gateway: it renders (one
// program started, one receipt) and its truth is unchanged, so nothing
// downstream moves.
func BenchmarkDrainOneEvent(b *testing.B) {
	for _, n := range chainSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g, st := primedChain(b, n)
			o := chainOptions(g, st)
			o.Kept = new(reconcile.Kept)
			warm(b, o)
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				o.Events = map[string][]any{"n00000": {map[string]any{"id": fmt.Sprint("e", i)}}}
				res, err := reconcile.Drain(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Receipts) != 1 || res.Programs != 1 || res.Rendered != 1 {
					b.Fatalf("one event: %d receipts, %d rendered, %d programs; want 1 each", len(res.Receipts), res.Rendered, res.Programs)
				}
			}
			reportCPU(b, cpuTime()-start, n)
		})
	}
}

// BenchmarkDrainOneEventOpen: as BenchmarkDrainOneEvent, but each drain
// opens the state directory anew and keeps nothing, as prose run DIR
// does (the graph still loaded once): the store's index is read and
// checked against the files each time.
func BenchmarkDrainOneEventOpen(b *testing.B) {
	for _, n := range chainSizes[:3] {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g, st := primedChain(b, n)
			warm(b, chainOptions(g, st))
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				st, err := store.Open(st.Dir)
				if err != nil {
					b.Fatal(err)
				}
				o := chainOptions(g, st)
				o.Events = map[string][]any{"n00000": {map[string]any{"id": fmt.Sprint("e", i)}}}
				res, err := reconcile.Drain(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Receipts) != 1 || res.Programs != 1 {
					b.Fatalf("one event: %d receipts, %d programs; want 1 each", len(res.Receipts), res.Programs)
				}
			}
			reportCPU(b, cpuTime()-start, n)
		})
	}
}

// BenchmarkStaleAtStart: what prose serve looks at as it starts, nothing
// moved: the state directory opened anew, under the lock, then Stale
// (its stale scan, nothing drained) or, for comparison, a quiet drain.
func BenchmarkStaleAtStart(b *testing.B) {
	for _, n := range chainSizes[:3] {
		for _, what := range []string{"stale", "drain"} {
			b.Run(fmt.Sprint(what, "/", n), func(b *testing.B) {
				g, st := primedChain(b, n)
				warm(b, chainOptions(g, st))
				b.ResetTimer()
				start := cpuTime()
				for i := 0; i < b.N; i++ {
					st, err := store.Open(st.Dir)
					if err != nil {
						b.Fatal(err)
					}
					st.HoldLock()
					o := chainOptions(g, st)
					if what == "drain" {
						res, err := reconcile.Drain(context.Background(), o)
						if err != nil || len(res.Receipts) != 0 {
							b.Fatal(err, res)
						}
						continue
					}
					if stale, err := reconcile.Stale(o); err != nil || len(stale) != 0 {
						b.Fatal(err, stale)
					}
				}
				reportCPU(b, cpuTime()-start, n)
			})
		}
	}
}
