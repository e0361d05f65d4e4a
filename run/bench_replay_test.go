package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"slices"
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

// peakHeapOf samples the heap every 200µs while fn runs, after a GC,
// and returns the highest samples of the bytes of heap objects (garbage
// not yet collected included: the collector's timing moves it) and of the
// heap the last GC found live (what the program held).
func peakHeapOf(fn func()) (objects, held uint64) {
	goruntime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			objects = max(objects, s[0].Value.Uint64())
			held = max(held, s[1].Value.Uint64())
			mu.Unlock()
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
	return objects, held
}

// ratchetRun is a journaled 10,000-step ratchet in dir (go: services
// in process, every step certified: 20,000 calls): the options that run
// it and replay it, and its request.
func ratchetRun(b *testing.B, dir string, steps int) (run.Options, run.Request) {
	b.Helper()
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
	return opts, req
}

// spread reports the median, lowest and highest of xs as metrics named
// name, name-min and name-max.
func spread(b *testing.B, xs []float64, name string) {
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	b.ReportMetric(med, name)
	b.ReportMetric(s[0], name+"-min")
	b.ReportMetric(s[len(s)-1], name+"-max")
}

// BenchmarkReplayOneDecode replays, through run.Replay (what prose
// replay does), the journal of a 10,000-step ratchet run (go: services
// in process, 20,000 calls), and compares its CPU (rusage, collector
// included) with that of one decode of the same journal
// (journal.ReadFile), and its peak heap with that of a live run of the
// same ratchet. Each of the b.N rounds measures them in turn, so that
// the load of a shared machine weighs on both alike: the CPU of two
// decodes and two replays, in the order decode, replay, replay, decode
// (replay first in every other round; a round's figure is the mean of
// its two), then the peak heap of a live run and of a replay, each
// sampled the same way (peakHeapOf: the heap objects, garbage included,
// and the heap found live), which goes first alternating too. It reports
// the median of the rounds' figures, and their lowest and highest.
//
//	go test ./run -run '^$' -bench 'ReplayOneDecode' -benchtime 5x
func BenchmarkReplayOneDecode(b *testing.B) {
	const steps = 10000
	dir := b.TempDir()
	opts, req := ratchetRun(b, dir, steps)
	res, err := run.Local{}.Run(context.Background(), req, opts)
	if err != nil {
		b.Fatal(err)
	}
	id := res.RunID
	path := filepath.Join(opts.RunDir, id, journal.FileName)
	decode := func() {
		if _, err := journal.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
	replay := func() {
		if _, err := run.Replay(context.Background(), id, opts); err != nil {
			b.Fatal(err)
		}
	}
	live := func() {
		if _, err := (run.Local{}).Run(context.Background(), req, opts); err != nil {
			b.Fatal(err)
		}
	}
	cpuOf := func(fn func()) time.Duration {
		goruntime.GC()
		c := cpuTime()
		fn()
		return cpuTime() - c
	}
	var decodeMS, replayMS, cpuRatio, livePeak, replayPeak, peakRatio, heldRatio []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var d, r time.Duration
		var lp, rp, lh, rh uint64
		if i%2 == 0 {
			d += cpuOf(decode)
			r += cpuOf(replay)
			r += cpuOf(replay)
			d += cpuOf(decode)
			lp, lh = peakHeapOf(live)
			rp, rh = peakHeapOf(replay)
		} else {
			r += cpuOf(replay)
			d += cpuOf(decode)
			d += cpuOf(decode)
			r += cpuOf(replay)
			rp, rh = peakHeapOf(replay)
			lp, lh = peakHeapOf(live)
		}
		d, r = d/2, r/2
		decodeMS = append(decodeMS, float64(d)/1e6)
		replayMS = append(replayMS, float64(r)/1e6)
		cpuRatio = append(cpuRatio, float64(r)/float64(d))
		livePeak = append(livePeak, float64(lp)/(1<<20))
		replayPeak = append(replayPeak, float64(rp)/(1<<20))
		peakRatio = append(peakRatio, float64(rp)/float64(lp))
		heldRatio = append(heldRatio, float64(rh)/float64(lh))
		b.Logf("round %d: CPU decode %.1f ms, replay %.1f ms (%.3f); peak heap live %.2f MB, replay %.2f MB (%.3f); held %.3f",
			i+1, decodeMS[i], replayMS[i], cpuRatio[i], livePeak[i], replayPeak[i], peakRatio[i], heldRatio[i])
	}
	b.StopTimer()
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/(1<<20), "journal-MB")
	}
	spread(b, decodeMS, "decode-cpu-ms")
	spread(b, replayMS, "replay-cpu-ms")
	spread(b, cpuRatio, "replay/decode-cpu")
	spread(b, livePeak, "live-peak-MB")
	spread(b, replayPeak, "replay-peak-MB")
	spread(b, peakRatio, "replay/live-peak")
	spread(b, heldRatio, "replay/live-held")
}
