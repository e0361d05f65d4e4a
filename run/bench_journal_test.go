package run_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// without a journal and with one (the default group commit): b.N pairs,
// the two runs of a pair one after the other (which one first
// alternating from pair to pair), so that both see the machine's load
// alike. For each pair it takes the journaled run over the bare one in
// all the CPU (prose's and the programs' it waited for: the journal's
// share of the whole run, the target's figure) and in prose's own CPU
// (rusage of this process: what the journal itself adds to), and
// prose's own CPU journaled minus bare, per call; it reports the median
// of each over the pairs and, for the ratios, the lowest and the
// highest (the spread the load gives them).
//
//	go test ./run -run '^$' -bench 'JournalExecRatchet' -benchtime 9x
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
	const calls = steps * 2
	var whole, self, perCall, bareCall []float64
	var journalBytes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false} // neither always first
		}
		var bare, journaled measured
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
				os.RemoveAll(filepath.Join(runs, res.RunID))
			}
		}
		whole = append(whole, float64(journaled.self+journaled.children)/float64(bare.self+bare.children))
		self = append(self, float64(journaled.self)/float64(bare.self))
		perCall = append(perCall, float64((journaled.self-bare.self).Microseconds())/calls)
		bareCall = append(bareCall, float64(bare.self.Microseconds())/calls)
	}
	b.StopTimer()
	b.ReportMetric(median(bareCall), "bare-cpu-µs/call")
	b.ReportMetric(median(perCall), "journal-cpu-µs/call")
	b.ReportMetric(median(whole), "journaled/bare-cpu")
	b.ReportMetric(slices.Min(whole), "journaled/bare-cpu-lo")
	b.ReportMetric(slices.Max(whole), "journaled/bare-cpu-hi")
	b.ReportMetric(median(self), "journaled/bare-self")
	b.ReportMetric(slices.Min(self), "journaled/bare-self-lo")
	b.ReportMetric(slices.Max(self), "journaled/bare-self-hi")
	b.ReportMetric(float64(journalBytes)/steps, "journal-B/step")
	if testing.Verbose() {
		b.Logf("pairs: whole %.3f, self %.3f, journal µs/call %.1f", whole, self, perCall)
	}
}

// median is the middle of xs (the mean of the two middle ones when
// their number is even).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
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
// one: b.N pairs, in turn (which first alternating). It reports the run
// directory's bytes (the journal and what is kept beside it), and the
// medians over the pairs of prose's CPU in each run and of the
// journaled run over the bare one in prose's CPU (with the lowest and
// highest) and in wall time. Beside them, the floor: the CPU of writing
// the run directory's bytes to a new file and fsyncing it, as any
// journal that keeps the value must, measured after each journaled run.
//
//	go test ./run -run '^$' -bench 'JournalLargeInput' -benchtime 9x
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
			var bareMS, journaledMS, floorMS, cpuRatio, wallRatio []float64
			var runBytes int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				order := []bool{false, true}
				if i%2 == 1 {
					order = []bool{true, false}
				}
				var bare, journaled measured
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
						rd := filepath.Join(runs, res.RunID)
						runBytes = dirBytes(rd)
						floorMS = append(floorMS, ms(writeFloor(b, runs, runBytes)))
						os.RemoveAll(rd)
					}
				}
				bareMS, journaledMS = append(bareMS, ms(bare.self)), append(journaledMS, ms(journaled.self))
				cpuRatio = append(cpuRatio, float64(journaled.self)/float64(bare.self))
				wallRatio = append(wallRatio, float64(journaled.wall)/float64(bare.wall))
			}
			b.StopTimer()
			b.ReportMetric(median(bareMS), "bare-cpu-ms")
			b.ReportMetric(median(journaledMS), "journaled-cpu-ms")
			b.ReportMetric(median(floorMS), "file-floor-cpu-ms")
			b.ReportMetric(float64(runBytes)/(1<<20), "run-dir-MB")
			b.ReportMetric(median(wallRatio), "journaled/bare-wall")
			b.ReportMetric(median(cpuRatio), "journaled/bare-cpu")
			b.ReportMetric(slices.Min(cpuRatio), "journaled/bare-cpu-lo")
			b.ReportMetric(slices.Max(cpuRatio), "journaled/bare-cpu-hi")
			if testing.Verbose() {
				b.Logf("pairs: bare ms %.1f, journaled ms %.1f, floor ms %.1f, cpu ratio %.2f", bareMS, journaledMS, floorMS, cpuRatio)
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeFloor is the CPU of writing n bytes to a new file in dir and
// fsyncing it: what keeping them costs at the least.
func writeFloor(b *testing.B, dir string, n int64) time.Duration {
	buf := []byte(strings.Repeat("x", int(n)))
	var m measured
	m.add(func() {
		f, err := os.CreateTemp(dir, ".floor-*")
		if err != nil {
			b.Fatal(err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	})
	return m.self
}
