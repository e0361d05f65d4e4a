package serve_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// BenchmarkEvents sends b.N distinct events to basic-unit-suite's gateway
// from 16 senders at once, every node rendered by the exec-bound program
// testdata/world/bus, as fast as the queue takes them: events per second
// through the gateway, from the first sent to the end of the drain that
// committed the last, and the p50/p99 latency from an event's
// acknowledgement (its queue line on disk) to the end of the drain that
// committed it. In the same run, the floor: b.N events from as many
// senders, each appended to a file and fsync'd before the next (the least
// a server that keeps each event durably does); x-floor is prose's
// events/s over the floor's.
//
//	go test ./serve -run '^$' -bench Events -benchtime 2000x
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
		Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return render.Parse("exec:" + bus) },
			func(*graph.Node) string { return "exec:" + bus }),
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
	last := 0
	senders(b.N, func(i int) error {
		d, _, err := s.Trigger("counter-events", []byte(fmt.Sprintf(`{"id":"b%d","kind":"click","value":1}`, i)))
		if err != nil {
			return err
		}
		mu.Lock()
		acked[i], drains[i] = time.Now(), d
		last = max(last, d)
		mu.Unlock()
		return nil
	}, b)
	drains[b.N-1] = last
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
	floor := floorEvents(b, dir)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(floor, "floor-events/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds()/floor, "x-floor")
	b.ReportMetric(lat[b.N/2], "p50-ms")
	b.ReportMetric(lat[(b.N*99)/100], "p99-ms")
	b.ReportMetric(float64(len(doneAt)), "drains")
}

// eventSenders is how many senders the benchmark's events come from.
const eventSenders = 16

// senders calls send(i) for i in [0, n) from eventSenders goroutines.
func senders(n int, send func(i int) error, b *testing.B) {
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < eventSenders; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if err := send(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// floorEvents is the floor's events per second: b.N events from as many
// senders, each written to a file and fsync'd before the next.
func floorEvents(b *testing.B, dir string) float64 {
	f, err := os.OpenFile(filepath.Join(dir, "floor.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	start := time.Now()
	senders(b.N, func(i int) error {
		line := []byte(fmt.Sprintf("{\"id\":\"b%d\",\"kind\":\"click\",\"value\":1}\n", i))
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.Write(line); err != nil {
			return err
		}
		return f.Sync()
	}, b)
	return float64(b.N) / time.Since(start).Seconds()
}
