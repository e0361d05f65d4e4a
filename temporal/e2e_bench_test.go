package temporal

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
)

// concurrentRuns is how many runs the fleet benchmark starts at once.
const concurrentRuns = 50

// ratchetRequest is a ratchet of steps proposals whose services log to
// log with timestamps (testdata/count.sh).
func ratchetRequest(tb testing.TB, steps int, log string) (ResolveOptions, bind.Settings) {
	count, _ := filepath.Abs(filepath.Join("testdata", "count.sh"))
	cmd := "LOG=" + shq(log) + " sh " + shq(count)
	slots, err := bind.ParseAssignments("--slot", []string{"advancer=exec:" + cmd + " advancer", "certifier=exec:" + cmd + " certifier"})
	if err != nil {
		tb.Fatal(err)
	}
	cfg, _ := bind.ParseAssignments("--config", []string{"max_steps=" + strconv.Itoa(steps)})
	in, _ := bind.ParseAssignments("--input", []string{"task_brief=climb"})
	b := bind.Settings{Slots: slots, Config: cfg, Inputs: in}
	return ResolveOptions{Path: "std/patterns/ratchet.prose.md", Bindings: b}, b
}

// gaps are the times between one call's end and the next call's start of
// a sequential run, from its services' log: the engine's cost per call.
func gaps(tb testing.TB, log string) []time.Duration {
	type ev struct {
		kind string
		ns   int64
	}
	var evs []ev
	for _, l := range readLines(tb, log) {
		f := strings.Fields(l)
		if len(f) != 5 {
			continue
		}
		ns, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			tb.Fatalf("bad log line %q", l)
		}
		evs = append(evs, ev{f[0], ns})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].ns < evs[j].ns })
	var out []time.Duration
	for i := 1; i < len(evs); i++ {
		if evs[i-1].kind == "done" && evs[i].kind == "start" {
			out = append(out, time.Duration(evs[i].ns-evs[i-1].ns))
		}
	}
	return out
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// checkRatchet requires the 10-step ratchet's result: ten certified steps.
func checkRatchet(tb testing.TB, v delegation.Value, steps int) {
	res, _ := v.(*delegation.Object)
	if res == nil {
		tb.Fatalf("result %s is not an object", delegation.Text(v))
	}
	prog, _ := res.Get("result")
	if l, _ := prog.(*delegation.List); l == nil || l.Len() != steps {
		tb.Fatalf("result (certified progress) = %s, want %d steps", delegation.Text(prog), steps)
	}
}

// fleetFigures are what one fleet round measured.
type fleetFigures struct {
	remote, local         time.Duration // wall time of all runs
	remoteGaps, localGaps []time.Duration
}

// fleet starts runs ratchets of steps proposals at once against one
// worker (at most concurrentRuns calls at a time), waits for all and
// checks every result; then runs the same on the local engine, all at
// once in this process.
func fleet(tb testing.TB, runs, steps int) fleetFigures {
	conn := e2eConn(tb, uniqueQueue(tb))
	cl := dialTest(tb, conn)
	w := NewWorker(cl, conn, &Activities{}, WorkerOptions{MaxConcurrentCalls: concurrentRuns})
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var f fleetFigures
	dir := tb.TempDir()
	start := time.Now()
	ids := make([]string, runs)
	logs := make([]string, runs)
	for i := range ids {
		logs[i] = filepath.Join(dir, fmt.Sprintf("t%d.log", i))
		o, _ := ratchetRequest(tb, steps, logs[i])
		req, err := Resolve(o)
		if err != nil {
			tb.Fatal(err)
		}
		if ids[i], err = Start(ctx, cl, conn, "", req); err != nil {
			tb.Fatal(err)
		}
	}
	for _, id := range ids {
		v, err := Wait(ctx, cl, id)
		if err != nil {
			tb.Fatal(err)
		}
		checkRatchet(tb, v, steps)
	}
	f.remote = time.Since(start)
	for _, l := range logs {
		if n := countLines(tb, l, "done "); n != 2*steps {
			tb.Fatalf("%s: %d calls completed, want %d", l, n, 2*steps)
		}
		f.remoteGaps = append(f.remoteGaps, gaps(tb, l)...)
	}
	start = time.Now()
	var wg sync.WaitGroup
	errs := make([]error, runs)
	vals := make([]delegation.Value, runs)
	for i := 0; i < runs; i++ {
		logs[i] = filepath.Join(dir, fmt.Sprintf("l%d.log", i))
		_, bind := ratchetRequest(tb, steps, logs[i])
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			vals[i], errs[i] = runhost.Run(ctx, runhost.RunOptions{Path: "std/patterns/ratchet.prose.md", Bindings: bind})
		}(i)
	}
	wg.Wait()
	f.local = time.Since(start)
	for i := range errs {
		if errs[i] != nil {
			tb.Fatal(errs[i])
		}
		checkRatchet(tb, vals[i], steps)
		f.localGaps = append(f.localGaps, gaps(tb, logs[i])...)
	}
	return f
}

// TestE2EFiftyRuns: fifty runs at once against one worker all finish with
// their own, correct results.
func TestE2EFiftyRuns(t *testing.T) {
	fleet(t, concurrentRuns, 5)
}

// BenchmarkE2EFleet reports, for 50 ten-step ratchets started at once
// against one worker, runs per second and the time the engine adds
// between consecutive calls of a run (p50, p99), beside the same 50 runs
// on the local engine at once.
//
//	PROSE_TEMPORAL_TEST_ADDRESS=... PROSE_TEMPORAL_TEST_NAMESPACE=... \
//	  go test ./temporal/ -run '^$' -bench E2EFleet -benchtime 3x
func BenchmarkE2EFleet(b *testing.B) {
	const steps = 10
	var all fleetFigures
	for n := 0; n < b.N; n++ {
		f := fleet(b, concurrentRuns, steps)
		all.remote += f.remote
		all.local += f.local
		all.remoteGaps = append(all.remoteGaps, f.remoteGaps...)
		all.localGaps = append(all.localGaps, f.localGaps...)
	}
	report(b, all, b.N*concurrentRuns)
}

// BenchmarkE2ECallLatency runs one twenty-step ratchet at a time, on
// Temporal and locally, and reports the engine's time between consecutive
// calls (p50, p99) without the contention of the fleet benchmark.
//
//	PROSE_TEMPORAL_TEST_ADDRESS=... PROSE_TEMPORAL_TEST_NAMESPACE=... \
//	  go test ./temporal/ -run '^$' -bench E2ECallLatency -benchtime 10x
func BenchmarkE2ECallLatency(b *testing.B) {
	var all fleetFigures
	for n := 0; n < b.N; n++ {
		f := fleet(b, 1, 20)
		all.remote += f.remote
		all.local += f.local
		all.remoteGaps = append(all.remoteGaps, f.remoteGaps...)
		all.localGaps = append(all.localGaps, f.localGaps...)
	}
	report(b, all, b.N)
}

func report(b *testing.B, all fleetFigures, n int) {
	runs := float64(n)
	b.ReportMetric(runs/all.remote.Seconds(), "runs/s")
	b.ReportMetric(runs/all.local.Seconds(), "local-runs/s")
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		r, l := percentile(all.remoteGaps, p.q), percentile(all.localGaps, p.q)
		b.ReportMetric(float64(r.Microseconds())/1000, p.name+"-ms/call")
		b.ReportMetric(float64(l.Microseconds())/1000, "local-"+p.name+"-ms/call")
		b.ReportMetric(float64((r-l).Microseconds())/1000, "added-"+p.name+"-ms/call")
	}
}
