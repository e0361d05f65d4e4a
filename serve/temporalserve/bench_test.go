package temporalserve_test

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
	"github.com/proselang/prose/serve/temporalserve"
	"github.com/proselang/prose/temporal"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// BenchmarkTemporalEvents is serve's BenchmarkEvents on Temporal: b.N
// distinct events to basic-unit-suite's gateway through a serve
// workflow, one in-process worker rendering every node with the
// exec-bound program testdata/world/bus: events per second, and the
// p50/p99 latency from an event's acknowledgement (its update recorded)
// to the end of the drain that committed it. One at a time, as serve's
// benchmark sends them, and from 8 senders at once (an update is a round
// trip through the server; concurrent ones share workflow tasks). It
// needs the Temporal server of PROSE_TEMPORAL_TEST_ADDRESS (.ci/run
// starts one).
func BenchmarkTemporalEvents(b *testing.B) {
	b.Run("senders=1", func(b *testing.B) { benchEvents(b, 1) })
	b.Run("senders=8", func(b *testing.B) { benchEvents(b, 8) })
}

func benchEvents(b *testing.B, senders int) {
	addr := os.Getenv("PROSE_TEMPORAL_TEST_ADDRESS")
	if addr == "" {
		b.Skip("PROSE_TEMPORAL_TEST_ADDRESS is not set: no Temporal server")
	}
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
	conn := temporal.Conn{Address: addr, Namespace: os.Getenv("PROSE_TEMPORAL_TEST_NAMESPACE"),
		TaskQueue: "prose-serve-bench-" + time.Now().Format("150405.000000000"), KeyFile: filepath.Join(dir, "key")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl, err := temporal.Dial(ctx, conn)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	w := temporal.NewWorker(cl, conn, &temporal.Activities{}, temporal.WorkerOptions{})
	temporalserve.Register(w, &temporalserve.Activities{Open: func(temporalserve.World) (*temporalserve.Project, error) {
		return &temporalserve.Project{Graph: g, Store: st,
			Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return render.Parse("exec:" + bus) },
				func(*graph.Node) string { return "exec:" + bus })}, nil
	}})
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	id, err := temporalserve.Start(ctx, cl, conn.TaskQueue, temporalserve.World{Project: project, State: st.Dir})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.TerminateWorkflow(context.Background(), id, "", "benchmark over")
	f := temporalserve.NewFront(cl, id, g, st)

	acked := make([]time.Time, b.N)
	drains := make([]int, b.N)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for k := 0; k < senders; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for i := k; i < b.N; i += senders {
				d, _, err := f.Trigger("counter-events", []byte(fmt.Sprintf(`{"id":"b%d","kind":"click","value":1}`, i)))
				if err != nil {
					errs <- err
					return
				}
				acked[i], drains[i] = time.Now(), d
			}
		}(k)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	last := 0
	for _, d := range drains {
		last = max(last, d)
	}
	for {
		if st, _ := f.Drain(last); st == "done" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	// A drain ended at its start plus its duration (the worker's clock,
	// this machine's).
	doneAt := map[int]time.Time{}
	for _, d := range drains {
		if _, ok := doneAt[d]; ok {
			continue
		}
		state, o := f.Drain(d)
		if state != "done" || o.Error != "" {
			b.Fatalf("drain %d: %s %+v", d, state, o)
		}
		doneAt[d] = o.Start.Add(time.Duration(o.MS) * time.Millisecond)
	}
	lat := make([]float64, b.N)
	for i := range acked {
		lat[i] = float64(doneAt[drains[i]].Sub(acked[i]).Milliseconds())
	}
	sort.Float64s(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(lat[b.N/2], "p50-ms")
	b.ReportMetric(lat[(b.N*99)/100], "p99-ms")
	b.ReportMetric(float64(len(doneAt)), "drains")
}
