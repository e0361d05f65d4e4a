package journal

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/service"
)

// benchRatchet runs a ratchet of `steps` steps (2 calls and a judgment a
// step) b.N times, journaled or not, and reports the time per call.
func benchRatchet(b *testing.B, adv, cert delegation.Service, journaled bool, every time.Duration) {
	prog := mustParse(b, ratchetCode)
	const steps = 50
	globals := map[string]delegation.Value{"advancer": adv, "certifier": cert, "max_steps": int64(steps)}
	base := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runOnce(b, base, prog, globals, journaled, every)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps*2), "ns/call")
}

// runOnce runs prog with the real caller and the deterministic judge,
// journaled under base with the sync window every or not at all.
func runOnce(b *testing.B, base string, prog *syntax.Program, globals map[string]delegation.Value, journaled bool, every time.Duration) {
	host := &delegation.Host{Caller: service.Caller{}, Judge: &judge.Deterministic{}}
	var r *Run
	if journaled {
		var err error
		if r, err = Create(base, Header{Spec: "bench"}, Options{SyncEvery: every}); err != nil {
			b.Fatal(err)
		}
		host.Caller, host.Judge, host.Runtime = r.WrapCaller(host.Caller), r.WrapJudge(host.Judge), r.WrapRuntime(nil)
	}
	v, err := delegation.Run(context.Background(), prog, globals, host)
	if err != nil {
		b.Fatal(err)
	}
	if r != nil {
		r.Finish(v, err)
		r.Close()
	}
}

func instant(name string, v func() delegation.Value) *service.Func {
	return &service.Func{Name: name, Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return v(), nil
	}}
}

func BenchmarkRatchetInProcess(b *testing.B) {
	adv := instant("advancer", func() delegation.Value { return "a step" })
	cert := instant("certifier", func() delegation.Value {
		o := delegation.NewObject()
		o.Set("verdict", "certify")
		return o
	})
	b.Run("bare", func(b *testing.B) { benchRatchet(b, adv, cert, false, 0) })
	b.Run("journal-fsync-each", func(b *testing.B) { benchRatchet(b, adv, cert, true, 0) })
	b.Run("journal-group-100ms", func(b *testing.B) { benchRatchet(b, adv, cert, true, 100*time.Millisecond) })
}

func BenchmarkRatchetExec(b *testing.B) {
	adv := &service.Exec{Name: "advancer", Command: `cat >/dev/null; echo '"a step"'`}
	cert := &service.Exec{Name: "certifier", Command: `cat >/dev/null; echo '{"verdict":"certify"}'`}
	b.Run("bare", func(b *testing.B) { benchRatchet(b, adv, cert, false, 0) })
	b.Run("journal-fsync-each", func(b *testing.B) { benchRatchet(b, adv, cert, true, 0) })
	b.Run("journal-group-100ms", func(b *testing.B) { benchRatchet(b, adv, cert, true, 100*time.Millisecond) })
}

// BenchmarkJournalCall is the journal's own cost per call attempt (its
// records: digests, encoding, writes) over an instant in-process service,
// without the per-run costs (creating the run directory, syncing the
// header and the final record). The spawn cases' service reports a
// process group, as an exec: program's does, so the attempt's records
// are those of an exec call.
func BenchmarkJournalCall(b *testing.B) {
	svc := instant("svc", func() delegation.Value { return "a step of modest length, like a real answer" })
	spawn := &service.Func{Name: "svc", Fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		if req.Spawned != nil {
			req.Spawned(4242, "b1f0c2a8-5d6e-4f3a-9b7c-0e1d2c3b4a59 123456789 4242")
		}
		return "a step of modest length, like a real answer", nil
	}}
	args := delegation.NewObject()
	args.Set("task_brief", "write the next step")
	args.Set("certified_progress", delegation.NewList("step 1", "step 2", "step 3"))
	for _, c := range []struct {
		name  string
		every time.Duration
		wrap  bool
		svc   delegation.Service
	}{{"bare", 0, false, svc}, {"fsync-each", 0, true, svc}, {"group-100ms", 100 * time.Millisecond, true, svc},
		{"spawn-bare", 0, false, spawn}, {"spawn-group-100ms", 100 * time.Millisecond, true, spawn}} {
		b.Run(c.name, func(b *testing.B) {
			r, err := Create(b.TempDir(), Header{Spec: "bench"}, Options{SyncEvery: c.every})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			var caller delegation.Caller = service.Caller{}
			if c.wrap {
				caller = r.WrapCaller(caller)
			}
			req := &delegation.CallRequest{Service: c.svc, Args: args, Attempt: 1, Pos: diag.Position{File: "ratchet.prose.md", Line: 12, Col: 5}}
			b.ResetTimer()
			cpu := processCPU()
			for i := 0; i < b.N; i++ {
				req.Path = delegation.MustParsePath("L9/" + strconv.Itoa(i+1))
				if _, err := caller.Call(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/1e3/float64(b.N), "cpu-µs/call")
		})
	}
}

// BenchmarkExecOverhead interleaves unjournaled and journaled ratchet runs
// of exec services (20 calls a run) so both see the same machine load, and
// reports the journal's share of the run's time ("overhead-%") for each
// sync policy.
func BenchmarkExecOverhead(b *testing.B) {
	adv := &service.Exec{Name: "advancer", Command: `cat >/dev/null; echo '"a step"'`}
	cert := &service.Exec{Name: "certifier", Command: `cat >/dev/null; echo '{"verdict":"certify"}'`}
	prog := mustParse(b, ratchetCode)
	globals := map[string]delegation.Value{"advancer": adv, "certifier": cert, "max_steps": int64(10)}
	for _, every := range []time.Duration{100 * time.Millisecond, 0} {
		name := "group-100ms"
		if every == 0 {
			name = "fsync-each"
		}
		b.Run(name, func(b *testing.B) {
			base := b.TempDir()
			var bare, journaled time.Duration
			for i := 0; i < b.N; i++ {
				for _, j := range []bool{false, true} {
					start := time.Now()
					runOnce(b, base, prog, globals, j, every)
					if j {
						journaled += time.Since(start)
					} else {
						bare += time.Since(start)
					}
				}
			}
			b.ReportMetric(float64(bare.Microseconds())/float64(b.N), "bare-µs/run")
			b.ReportMetric(float64(journaled.Microseconds())/float64(b.N), "journal-µs/run")
			b.ReportMetric(100*float64(journaled-bare)/float64(bare), "overhead-%")
		})
	}
}

// BenchmarkReplay is the cost of answering calls from a journal: a
// sequential ratchet (100 calls) and a parallel loop of 100 calls, whose
// answers are handed out in journal order (turn.go).
func BenchmarkReplay(b *testing.B) {
	w := newRatchetWorld()
	adv, cert := w.adv, w.cert
	const fanCode = `let out = []
parallel for i in items:
  let r = call svc
    i: i
  append r to out
return {n: out.length}
`
	items := make([]delegation.Value, 100)
	for i := range items {
		items[i] = int64(i)
	}
	for _, c := range []struct {
		name    string
		code    string
		globals map[string]delegation.Value
	}{
		{"ratchet", ratchetCode, map[string]delegation.Value{"advancer": adv, "certifier": cert, "max_steps": int64(50)}},
		{"parallel", fanCode, map[string]delegation.Value{"svc": cert, "items": delegation.NewList(items...)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			prog := mustParse(b, c.code)
			base := b.TempDir()
			r, err := Create(base, Header{Spec: "bench"}, Options{SyncEvery: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := runWith(b, r, prog, c.globals, context.Background()); err != nil {
				b.Fatal(err)
			}
			r.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rp, err := Replay(base, r.ID(), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := runWith(b, rp, prog, c.globals, context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
		})
	}
}

// processCPU is the CPU (user and system) this process has used: under a
// shared machine's load, a steadier measure of what a call costs than
// the wall clock.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
