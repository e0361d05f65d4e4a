package journal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/service"
)

// peakHeap samples the heap (runtime/metrics) every 200µs while fn runs,
// after a GC, and returns the highest samples of the bytes of heap
// objects (garbage not yet collected included) and of the heap the last
// GC found live (what the program held).
func peakHeap(fn func()) (objects, held uint64) {
	goruntime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var peak, live uint64
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
			peak = max(peak, s[0].Value.Uint64())
			live = max(live, s[1].Value.Uint64())
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
	return peak, live
}

// BenchmarkReplayPeakHeap compares the peak heap of a journaled run of a
// 10,000-step ratchet (go: services, in process: every step certified, so
// the progress the run holds grows to 10,000 steps) with that of its
// replay, parsing the journal included. A replay holds an index of the
// journal's records, not the records: it reads each on demand.
//
//	go test ./journal -run '^$' -bench 'ReplayPeakHeap' -benchtime 1x
func BenchmarkReplayPeakHeap(b *testing.B) {
	prog := mustParse(b, ratchetCode)
	var n int
	var mu sync.Mutex
	adv := &service.Func{Name: "advancer", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		return fmt.Sprintf("step %d of the work: the change, its test and its note, certified", k), nil
	}}
	cert := instant("certifier", func() delegation.Value {
		o := delegation.NewObject()
		o.Set("verdict", "certify")
		return o
	})
	const steps = 10000
	globals := map[string]delegation.Value{"advancer": adv, "certifier": cert, "max_steps": int64(steps)}
	for i := 0; i < b.N; i++ {
		base := b.TempDir()
		var id string
		live, liveHeld := peakHeap(func() {
			r, err := Create(base, Header{Spec: "bench"}, Options{SyncEvery: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			id = r.ID()
			runRatchet(b, r, prog, globals)
		})
		replay, replayHeld := peakHeap(func() {
			r, err := Replay(base, id, Options{})
			if err != nil {
				b.Fatal(err)
			}
			runRatchet(b, r, prog, globals)
		})
		if st, err := os.Stat(filepath.Join(base, id, FileName)); err == nil {
			b.ReportMetric(float64(st.Size())/(1<<20), "journal-MB")
		}
		b.ReportMetric(float64(live)/(1<<20), "live-peak-MB")
		b.ReportMetric(float64(replay)/(1<<20), "replay-peak-MB")
		b.ReportMetric(float64(replay)/float64(live), "replay/live")
		b.ReportMetric(float64(liveHeld)/(1<<20), "live-held-MB")
		b.ReportMetric(float64(replayHeld)/(1<<20), "replay-held-MB")
		b.ReportMetric(float64(replayHeld)/float64(liveHeld), "held-replay/live")
	}
}

func runRatchet(b *testing.B, r *Run, prog *syntax.Program, globals map[string]delegation.Value) {
	b.Helper()
	host := &delegation.Host{Caller: r.WrapCaller(service.Caller{}), Judge: r.WrapJudge(&judge.Deterministic{}), Runtime: r.WrapRuntime(nil), MaxSteps: 1 << 30}
	v, err := delegation.Run(context.Background(), prog, globals, host)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Finish(v, nil); err != nil {
		b.Fatal(err)
	}
	r.Close()
}

// BenchmarkTornTail256MB reads a journal whose last line is a record of
// 256 MB cut short by a kill (no newline): resume (which cuts it off),
// replay and runs show (ReadFile) skip it without holding it.
//
//	go test ./journal -run '^$' -bench 'TornTail256MB' -benchtime 1x
func BenchmarkTornTail256MB(b *testing.B) {
	base := b.TempDir()
	path, id := writeOneCallRun(&testing.T{}, base)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	f.WriteString(`{"t":"end","time":"2026-01-01T00:00:00Z","id":"L2","attempt":1,"result":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 256 {
		f.Write(chunk)
	}
	f.Close()
	chunk = nil
	for i := 0; i < b.N; i++ {
		read, _ := peakHeap(func() {
			l, err := ReadFile(path)
			if err != nil || !l.Torn || len(l.Records) != 3 {
				b.Fatalf("read: %v", err)
			}
		})
		replay, _ := peakHeap(func() {
			r, err := Replay(base, id, Options{})
			if err != nil {
				b.Fatal(err)
			}
			r.Close()
		})
		b.ReportMetric(float64(read)/(1<<20), "read-peak-MB")
		b.ReportMetric(float64(replay)/(1<<20), "replay-peak-MB")
	}
}
