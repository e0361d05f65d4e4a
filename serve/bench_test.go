package serve_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// BenchmarkEvents sends b.N distinct events to basic-unit-suite's gateway,
// every node rendered by the exec-bound program testdata/world/bus, as
// fast as the queue takes them: events per second through the gateway,
// and the p50/p99 latency from an event's acknowledgement (its queue line
// on disk) to the end of the drain that committed it.
func BenchmarkEvents(b *testing.B) {
	project := testenv.Corpus015(b, "examples/basic-unit-suite")
	dir := b.TempDir()
	bus := filepath.Join(dir, "bus")
	if out, err := exec.Command("go", "build", "-o", bus, filepath.Join(testenv.MustRoot(b), "testdata", "world", "bus")).CombinedOutput(); err != nil {
		b.Fatalf("building bus: %v\n%s", err, out)
	}
	g, diags, err := graph.Load(project)
	if err != nil || diags.HasErrors() {
		b.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(dir, "state"))
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	doneAt := map[int]time.Time{}
	s, err := serve.New(serve.Options{Graph: g, Store: st,
		Binding:  func(*graph.Node) string { return "exec:" + bus },
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return render.Parse("exec:" + bus) },
		Drained: func(o *serve.Outcome) {
			mu.Lock()
			doneAt[o.Drain] = time.Now()
			mu.Unlock()
		}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()

	acked := make([]time.Time, b.N)
	drains := make([]int, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		d, _, err := s.Trigger("counter-events", []byte(fmt.Sprintf(`{"id":"b%d","kind":"click","value":1}`, i)))
		if err != nil {
			b.Fatal(err)
		}
		acked[i], drains[i] = time.Now(), d
	}
	for {
		if st, _ := s.Drain(drains[b.N-1]); st == "done" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-ran
	lat := make([]float64, b.N)
	mu.Lock()
	for i := range acked {
		lat[i] = float64(doneAt[drains[i]].Sub(acked[i]).Milliseconds())
	}
	mu.Unlock()
	sort.Float64s(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(lat[b.N/2], "p50-ms")
	b.ReportMetric(lat[(b.N*99)/100], "p99-ms")
	b.ReportMetric(float64(len(doneAt)), "drains")
}
