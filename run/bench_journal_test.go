package run_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/run"
)

// cpuOf is the CPU (user and system) of who (syscall.RUSAGE_SELF: this
// process; syscall.RUSAGE_CHILDREN: the programs it ran and waited for).
func cpuOf(who int) time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dirBytes is the size of the regular files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if st, err := d.Info(); err == nil {
				n += st.Size()
			}
		}
		return nil
	})
	return n
}

// measured is what one run cost: wall time, this process's CPU and its
// programs' CPU.
type measured struct{ wall, self, children time.Duration }

func (m *measured) add(fn func()) {
	w, s, c := time.Now(), cpuOf(syscall.RUSAGE_SELF), cpuOf(syscall.RUSAGE_CHILDREN)
	fn()
	m.wall += time.Since(w)
	m.self += cpuOf(syscall.RUSAGE_SELF) - s
	m.children += cpuOf(syscall.RUSAGE_CHILDREN) - c
}

// BenchmarkJournalExecRatchet runs the ratchet of ratchetSpec with both
// slots bound to exec: programs (a 1,000-step run: 2,000 exec calls),
// without a journal and with one (the default group commit), in turn in
// each round (which one first alternating from round to round) so that
// both see the machine's load alike. It reports
// prose's own CPU (rusage of this process: the programs are its waited
// children, counted apart) per call in each, the journal's share of it
// (journal-cpu-µs/call: journaled minus bare, per call), and the
// journaled run over the bare one in wall time and in all the CPU
// (prose's and the programs').
//
//	go test ./run -run '^$' -bench 'JournalExecRatchet' -benchtime 2x -count 2
func BenchmarkJournalExecRatchet(b *testing.B) {
	const steps = 1000
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ratchet.prose.md"), []byte(ratchetSpec), 0o644); err != nil {
		b.Fatal(err)
	}
	req := run.Request{Spec: "ratchet.prose.md", Dir: dir, Limits: run.Limits{MaxSteps: 1 << 30},
		Bindings: bind.Settings{
			Slots: []bind.Assignment{
				{Name: "advancer", Value: `exec:cat >/dev/null; echo '"a step of the work, certified"'`},
				{Name: "certifier", Value: `exec:cat >/dev/null; echo '{"verdict":"certify"}'`},
			},
			Config: []bind.Assignment{{Name: "max_steps", Value: "1000"}},
		}}
	runs := filepath.Join(dir, "runs")
	var bare, journaled measured
	var journalBytes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false} // neither always first
		}
		for _, j := range order {
			o := run.Options{Getenv: func(string) string { return "" }, Environ: []string{}}
			m := &bare
			if j {
				o.RunDir, o.SyncEvery, m = runs, 100*time.Millisecond, &journaled
			}
			var res *run.Result
			m.add(func() {
				var err error
				if res, err = (run.Local{}).Run(context.Background(), req, o); err != nil {
					b.Fatal(err)
				}
			})
			if j {
				journalBytes = dirBytes(filepath.Join(runs, res.RunID))
			}
		}
	}
	b.StopTimer()
	calls := float64(b.N * steps * 2)
	b.ReportMetric(float64(bare.self.Microseconds())/calls, "bare-cpu-µs/call")
	b.ReportMetric(float64((journaled.self-bare.self).Microseconds())/calls, "journal-cpu-µs/call")
	b.ReportMetric(float64(journaled.wall)/float64(bare.wall), "journaled/bare-wall")
	b.ReportMetric(float64(journaled.self+journaled.children)/float64(bare.self+bare.children), "journaled/bare-cpu")
	b.ReportMetric(float64(journalBytes)/steps, "journal-B/step")
}

// bigInputSpec passes one input to a service and returns what it
// answers.
const bigInputSpec = `---
name: big-input
kind: pattern
---

# Big input

Hands a long topic to a writer.

### Slots

- ` + "`writer`" + `

### Requires

- Pattern instance receives:
    writer: string  -- the service that writes
    topic: string   -- what to write about

### Ensures

- ` + "`result`" + `: what the writer wrote

### Delegation

` + "```prose" + `
let draft = call writer
  topic: topic
return {result: draft}
` + "```" + `
`

// BenchmarkJournalLargeInput runs a spec given a 5 MB --input whose
// service, an exec: program, answers with the arguments it got (echo:
// the value is then in the request, the call's result and the run's
// result) or with their length (summary), without a journal and with
// one, in turn. It reports the run directory's bytes (the journal and
// what is kept beside it) and the journaled run over the bare one in
// wall time and in prose's CPU.
//
//	go test ./run -run '^$' -bench 'JournalLargeInput' -benchtime 3x -count 3
func BenchmarkJournalLargeInput(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.prose.md"), []byte(bigInputSpec), 0o644); err != nil {
		b.Fatal(err)
	}
	line := "Another paragraph about the topic, with \"quotes\", a tab\tand words.\n"
	topic := strings.Repeat(line, 5<<20/len(line))
	for _, c := range []struct{ name, writer string }{{"echo", "exec:cat"}, {"summary", "exec:wc -c"}} {
		b.Run(c.name, func(b *testing.B) {
			req := run.Request{Spec: "big.prose.md", Dir: dir,
				Bindings: bind.Settings{
					Slots:  []bind.Assignment{{Name: "writer", Value: c.writer}},
					Inputs: []bind.Assignment{{Name: "topic", Value: topic}},
				}}
			runs := filepath.Join(dir, "runs")
			var bare, journaled measured
			var runBytes int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, j := range []bool{false, true} {
					o := run.Options{Getenv: func(string) string { return "" }, Environ: []string{}}
					m := &bare
					if j {
						o.RunDir, o.SyncEvery, m = runs, 100*time.Millisecond, &journaled
					}
					var res *run.Result
					m.add(func() {
						var err error
						if res, err = (run.Local{}).Run(context.Background(), req, o); err != nil {
							b.Fatal(err)
						}
					})
					if j {
						runBytes = dirBytes(filepath.Join(runs, res.RunID))
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(bare.self.Milliseconds())/float64(b.N), "bare-cpu-ms")
			b.ReportMetric(float64(journaled.self.Milliseconds())/float64(b.N), "journaled-cpu-ms")
			b.ReportMetric(float64(runBytes)/(1<<20), "run-dir-MB")
			b.ReportMetric(float64(journaled.wall)/float64(bare.wall), "journaled/bare-wall")
			b.ReportMetric(float64(journaled.self)/float64(bare.self), "journaled/bare-cpu")
		})
	}
}
