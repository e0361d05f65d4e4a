package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
)

// ratchetSpec is a ratchet whose certifier's verdict is read without a
// model: every step is certified, so the progress the run holds grows
// with its steps.
const ratchetSpec = `---
name: ratchet-bench
kind: pattern
---

# Ratchet bench

Proposes steps and keeps those certified.

### Slots

- ` + "`advancer`" + `
- ` + "`certifier`" + `

### Config

- ` + "`max_steps`" + `: how many steps

### Delegation

` + "```prose" + `
let progress = []
let feedback = null
repeat max_steps:
  let proposal = call advancer
    progress: progress
    feedback: feedback
  let verdict = call certifier
    proposed_step: proposal
  if verdict.verdict == "certify":
    append proposal to progress
    feedback = null
  else:
    feedback = verdict
return {result: progress}
` + "```" + `
`

// cpuTime is the CPU (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakHeapOf samples the heap objects' bytes (garbage not yet collected
// included) every 200µs while fn runs, after a GC, and returns the
// highest.
func peakHeapOf(fn func()) uint64 {
	goruntime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkReplayOneDecode replays, through run.Replay (what prose
// replay does), the journal of a 10,000-step ratchet run (go: services
// in process, 20,000 calls), and compares its CPU (rusage, collector
// included) with that of one decode of the same journal
// (journal.ReadFile: encoding/json of every record), measured in turn in
// each round so that the load of a shared machine weighs on both alike;
// and its peak heap with that of the live run that wrote the journal.
//
//	go test ./run -run '^$' -bench 'ReplayOneDecode' -benchtime 3x -count 2
func BenchmarkReplayOneDecode(b *testing.B) {
	const steps = 10000
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ratchet.prose.md"), []byte(ratchetSpec), 0o644); err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	adv := &service.Func{Name: "advancer", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		return fmt.Sprintf("step %d of the work: the change, its test and its note, certified", k), nil
	}}
	cert := &service.Func{Name: "certifier", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		o := delegation.NewObject()
		o.Set("verdict", "certify")
		return o, nil
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), SyncEvery: time.Second,
		Services: map[string]service.Service{"adv": adv, "cert": cert},
		Getenv:   func(string) string { return "" }, Environ: []string{}}
	req := run.Request{Spec: "ratchet.prose.md", Dir: dir, Limits: run.Limits{MaxSteps: 1 << 30},
		Bindings: bind.Settings{
			Slots:  []bind.Assignment{{Name: "advancer", Value: "go:adv"}, {Name: "certifier", Value: "go:cert"}},
			Config: []bind.Assignment{{Name: "max_steps", Value: fmt.Sprint(steps)}},
		}}
	var id string
	livePeak := peakHeapOf(func() {
		res, err := run.Local{}.Run(context.Background(), req, opts)
		if err != nil {
			b.Fatal(err)
		}
		id = res.RunID
	})
	path := filepath.Join(opts.RunDir, id, journal.FileName)
	var decode, replay time.Duration
	var replayPeak uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		goruntime.GC()
		c := cpuTime()
		if _, err := journal.ReadFile(path); err != nil {
			b.Fatal(err)
		}
		decode += cpuTime() - c
		goruntime.GC()
		c = cpuTime()
		if _, err := run.Replay(context.Background(), id, opts); err != nil {
			b.Fatal(err)
		}
		replay += cpuTime() - c
		replayPeak = max(replayPeak, peakHeapOf(func() {
			if _, err := run.Replay(context.Background(), id, opts); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.StopTimer()
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/(1<<20), "journal-MB")
	}
	b.ReportMetric(float64(decode.Milliseconds())/float64(b.N), "decode-cpu-ms")
	b.ReportMetric(float64(replay.Milliseconds())/float64(b.N), "replay-cpu-ms")
	b.ReportMetric(float64(replay)/float64(decode), "replay/decode-cpu")
	b.ReportMetric(float64(livePeak)/(1<<20), "live-peak-MB")
	b.ReportMetric(float64(replayPeak)/(1<<20), "replay-peak-MB")
	b.ReportMetric(float64(replayPeak)/float64(livePeak), "replay/live-peak")
}
