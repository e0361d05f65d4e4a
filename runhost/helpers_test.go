package runhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/bind/bindtest"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/redact"
)

// moduleRoot is the folder holding go.mod.
func moduleRoot(t testing.TB) string { return testenv.MustRoot(t) }

// corpusSpec is the path of a corpus pattern, read in place; the test is
// skipped when the corpus is not there.
func corpusSpec(t testing.TB, name string) string { return testenv.CorpusFile(t, name) }

// demo is the path of a file under testdata/run.
func demo(t testing.TB, name string) string {
	return filepath.Join(moduleRoot(t), "testdata", "run", name)
}

// shq quotes s for /bin/sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// execDemo is an exec: binding running a demo script with env settings.
func execDemo(t testing.TB, script string, env ...string) string {
	cmd := "exec:"
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		cmd += k + "=" + shq(v) + " "
	}
	return cmd + "sh " + shq(demo(t, script))
}

// outcome is what a test run produced.
type outcome struct {
	value  delegation.Value
	err    error
	trace  []map[string]any
	events *eventLog
}

// eventLog keeps every event of a run.
type eventLog struct {
	mu     sync.Mutex
	events []delegation.Event
}

func (l *eventLog) Record(ev *delegation.Event) {
	l.mu.Lock()
	l.events = append(l.events, *ev)
	l.mu.Unlock()
}

func (l *eventLog) count(kind delegation.EventKind, slot string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ev := range l.events {
		if ev.Kind == kind && (slot == "" || ev.Slot == slot) {
			n++
		}
	}
	return n
}

// runSpec runs the spec at path with bindings given as flag texts (see
// bindtest.Parse).
func runSpec(t *testing.T, path string, flags []string, mod ...func(*RunOptions)) outcome {
	t.Helper()
	b, err := bindtest.Parse(flags)
	if err != nil {
		t.Fatal(err)
	}
	log := &eventLog{}
	opts := RunOptions{Path: path, Bindings: b, Recorders: []delegation.Recorder{log},
		Env: &bind.Env{Dir: t.TempDir(), Nested: callgraph.NestedSpec}}
	for _, m := range mod {
		m(&opts)
	}
	v, trace, err := traceRun(opts)
	return outcome{value: v, err: err, trace: parseTrace(t, trace), events: log}
}

// traceRun runs opts with a journal.Trace, started once the spec is bound
// and finished with the run's totals, as package run does; secrets are
// scrubbed from it.
func traceRun(opts RunOptions, secrets ...string) (delegation.Value, []byte, error) {
	var buf bytes.Buffer
	tr := journal.NewTrace(&buf, redact.New(secrets...).WithShapes())
	totals := &TotalsRecorder{}
	opts.Recorders = append(opts.Recorders, tr, totals)
	started := false
	wrap := opts.Wrap
	opts.Wrap = func(p *Prepared) error {
		if wrap != nil {
			if err := wrap(p); err != nil {
				return err
			}
		}
		tr.Start(journal.Header{Spec: p.Path, SpecDigest: journal.Digest(p.Spec.File.Source())})
		started = true
		return nil
	}
	v, err := Run(context.Background(), opts)
	if started {
		tr.Finish(time.Now(), v, err, totals.Totals(), nil)
	}
	return v, buf.Bytes(), err
}

func parseTrace(t *testing.T, raw []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// decode turns a run-time value into plain Go data (float64 numbers).
func decode(t *testing.T, v delegation.Value) any {
	t.Helper()
	raw, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// readLines reads a log file of JSON lines written by a demo service.
func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseTrace(t, raw)
}

// traceOf returns the trace records of one type ("end", "final", ...:
// journal/FORMAT.md).
func (o outcome) traceOf(typ string) []map[string]any {
	var out []map[string]any
	for _, r := range o.trace {
		if r["t"] == typ {
			out = append(out, r)
		}
	}
	return out
}
