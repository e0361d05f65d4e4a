package journal

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
)

// BenchmarkExecOverheadSteps is BenchmarkExecOverhead for long ratchets:
// 200 and 2,000 steps (400 and 4,000 exec calls a run, the certified
// progress growing by one step each), unjournaled and journaled runs
// interleaved, with the default group-commit window. overhead-% is the
// journal's share of the run's time.
//
//	go test ./journal -run '^$' -bench 'ExecOverheadSteps' -benchtime 1x
func BenchmarkExecOverheadSteps(b *testing.B) {
	adv := &service.Exec{Name: "advancer", Command: `cat >/dev/null; echo '"a step of the work, certified"'`}
	cert := &service.Exec{Name: "certifier", Command: `cat >/dev/null; echo '{"verdict":"certify"}'`}
	prog := mustParse(b, ratchetCode)
	for _, steps := range []int{200, 2000} {
		b.Run(fmt.Sprint(steps), func(b *testing.B) {
			globals := map[string]delegation.Value{"advancer": adv, "certifier": cert, "max_steps": int64(steps)}
			base := b.TempDir()
			var bare, journaled time.Duration
			for i := 0; i < b.N; i++ {
				for _, j := range []bool{false, true} {
					start := time.Now()
					runOnce(b, base, prog, globals, j, 100*time.Millisecond)
					if j {
						journaled += time.Since(start)
					} else {
						bare += time.Since(start)
					}
				}
			}
			b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "bare-ms/run")
			b.ReportMetric(float64(journaled.Milliseconds())/float64(b.N), "journal-ms/run")
			b.ReportMetric(100*float64(journaled-bare)/float64(bare), "overhead-%")
		})
	}
}

// BenchmarkReplaySteps is the time per call of a replay of ratchets of
// 200, 1,000 and 4,000 steps (in-process services, the progress growing by
// one step every other step): whole replays, parsing the journal included.
//
//	go test ./journal -run '^$' -bench 'ReplaySteps' -benchtime 3x
func BenchmarkReplaySteps(b *testing.B) {
	prog := mustParse(b, ratchetCode)
	for _, steps := range []int{200, 1000, 4000} {
		b.Run(fmt.Sprint(steps), func(b *testing.B) {
			w := newRatchetWorld()
			globals := w.globals(int64(steps))
			base := b.TempDir()
			r, err := Create(base, Header{Spec: "bench"}, Options{SyncEvery: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := runWith(b, r, prog, globals, context.Background()); err != nil {
				b.Fatal(err)
			}
			r.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rp, err := Replay(base, r.ID(), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := runWith(b, rp, prog, globals, context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*steps*2), "µs/call")
		})
	}
}

// BenchmarkJournalCostSteps is the journal's own cost per call in long
// ratchets of instant in-process services (journaled run time minus bare
// run time, per call), at 200 and 2,000 steps: what the journal adds to
// each call whatever the service costs. Compare with the cost of an exec
// call (BenchmarkRatchetExec, bare) for the overhead on exec-backed runs.
//
//	go test ./journal -run '^$' -bench 'JournalCostSteps' -benchtime 3x
func BenchmarkJournalCostSteps(b *testing.B) {
	prog := mustParse(b, ratchetCode)
	adv := instant("advancer", func() delegation.Value { return "a step of the work, certified" })
	cert := instant("certifier", func() delegation.Value {
		o := delegation.NewObject()
		o.Set("verdict", "certify")
		return o
	})
	for _, steps := range []int{200, 2000} {
		b.Run(fmt.Sprint(steps), func(b *testing.B) {
			globals := map[string]delegation.Value{"advancer": adv, "certifier": cert, "max_steps": int64(steps)}
			base := b.TempDir()
			var bare, journaled time.Duration
			for i := 0; i < b.N; i++ {
				for _, j := range []bool{false, true} {
					start := time.Now()
					runOnce(b, base, prog, globals, j, 100*time.Millisecond)
					if j {
						journaled += time.Since(start)
					} else {
						bare += time.Since(start)
					}
				}
			}
			calls := float64(b.N * steps * 2)
			b.ReportMetric(float64(bare.Microseconds())/calls, "bare-µs/call")
			b.ReportMetric(float64((journaled-bare).Microseconds())/calls, "journal-µs/call")
		})
	}
}
