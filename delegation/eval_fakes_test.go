package delegation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/testenv"
)

// svc is a fake Service.
type svc string

func (s svc) ServiceName() string { return string(s) }

// fakeCaller answers calls with per-service functions and logs requests.
type fakeCaller struct {
	mu    sync.Mutex
	fns   map[string]func(ctx context.Context, req *CallRequest) (Value, error)
	log   []*CallRequest
	calls atomic.Int64
}

func newCaller() *fakeCaller {
	return &fakeCaller{fns: map[string]func(context.Context, *CallRequest) (Value, error){}}
}

func (c *fakeCaller) on(name string, fn func(ctx context.Context, req *CallRequest) (Value, error)) *fakeCaller {
	c.fns[name] = fn
	return c
}

func (c *fakeCaller) Call(ctx context.Context, req *CallRequest) (Value, error) {
	c.calls.Add(1)
	c.mu.Lock()
	c.log = append(c.log, req)
	fn := c.fns[req.Service.ServiceName()]
	c.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("no fake for %s", req.Service.ServiceName())
	}
	return fn(ctx, req)
}

// ids lists the "ID#attempt" of every request, sorted by arrival.
func (c *fakeCaller) ids() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.log {
		out = append(out, fmt.Sprintf("%s#%d", r.Path, r.Attempt))
	}
	return out
}

// echo returns its arguments as an object.
func echo(_ context.Context, req *CallRequest) (Value, error) { return req.Args, nil }

// judgeFunc adapts a function to Judge.
type judgeFunc func(j *Judgment) (Verdict, error)

func (f judgeFunc) Judge(_ context.Context, j *Judgment) (Verdict, error) { return f(j) }

// fakeJudge decides `says` with a null criterion by polarity and verb
// conditions from a structured {verdict: ...} subject; of a choice, it
// picks the first value the criteria mention that is one of the labels.
func fakeJudge() Judge {
	return judgeFunc(func(j *Judgment) (Verdict, error) {
		if j.IsChoice() {
			return fakePick(j)
		}
		c := j.Cond
		if c.Says != nil {
			crit, _ := j.Values.Get(c.Says.Criterion)
			if crit == nil || crit == "" {
				return Verdict{Holds: (c.Says.Polarity == syntax.Positive) != c.Says.Negated, Rule: "says-null-criterion"}, nil
			}
			return Verdict{}, errors.New("needs a model")
		}
		subj, _ := j.Values.Get(c.Words[0].Path)
		var word Value
		if o, ok := subj.(*Object); ok {
			word, _ = o.Get("verdict")
		}
		holds := word == "certify" || word == "accept" || word == "proceed"
		return Verdict{Holds: holds != c.Negated, Rule: "structured-verdict"}, nil
	})
}

// fakePick picks, of choice j, the label that the first value its
// criteria mention holds as text; without one it fails.
func fakePick(j *Judgment) (Verdict, error) {
	for _, k := range j.Values.Keys() {
		v, _ := j.Values.Get(k)
		for _, l := range j.Options {
			if v == l {
				return Verdict{Pick: l, Rule: "fake-pick"}, nil
			}
		}
	}
	return Verdict{}, errors.New("no value names an option")
}

// fakeRuntime runs parallel work on goroutines (DefaultRuntime) but has a
// fake clock: Sleep advances it and logs the delay without waiting.
type fakeRuntime struct {
	Runtime
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	jitter float64
}

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{Runtime: DefaultRuntime(), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (r *fakeRuntime) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = r.now.Add(time.Millisecond)
	return r.now
}

func (r *fakeRuntime) Sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.sleeps = append(r.sleeps, d)
	r.now = r.now.Add(d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *fakeRuntime) Jitter(string) float64 { return r.jitter }

// events collects recorded events.
type events struct {
	mu  sync.Mutex
	evs []*Event
}

func (e *events) Record(ev *Event) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) kinds(kind EventKind) []*Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*Event
	for _, ev := range e.evs {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// parse parses code (a Delegation block on its own) named test.md.
func parse(t testing.TB, code string) *syntax.Program {
	t.Helper()
	prog, errs := syntax.ParseString("test.md", code)
	if errs.HasErrors() {
		t.Fatalf("parse: %v", errs)
	}
	return prog
}

// run parses and runs code with the given host (nil: a fake caller with no
// services, the fake judge and a fake clock).
func run(t testing.TB, code string, globals map[string]Value, host *Host) (Value, error) {
	t.Helper()
	if host == nil {
		host = &Host{Caller: newCaller(), Judge: fakeJudge(), Runtime: newFakeRuntime()}
	}
	return Run(context.Background(), parse(t, code), globals, host)
}

// mustRun is run that fails the test on error and returns the JSON result.
func mustRun(t testing.TB, code string, globals map[string]Value, host *Host) string {
	t.Helper()
	v, err := run(t, code, globals, host)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return js(t, v)
}

func js(t testing.TB, v Value) string {
	t.Helper()
	b, err := ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jv(t testing.TB, s string) Value {
	t.Helper()
	v, err := FromJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runErr runs code expecting a run-time *Error and returns it.
func runErr(t testing.TB, code string, globals map[string]Value, host *Host) *Error {
	t.Helper()
	v, err := run(t, code, globals, host)
	if err == nil {
		t.Fatalf("want an error, got %s", js(t, v))
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T: %v", err, err)
	}
	return e
}

// wantErr checks that err's text contains every fragment.
func wantErr(t testing.TB, err error, frags ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error containing %q, got none", frags)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err.Error(), f)
		}
	}
}

// corpusPattern parses the Delegation block of a corpus pattern, with
// positions into its .md file; it skips the test when the corpus is
// absent. (It reads the block itself: package spec, which reads it for a
// run, imports this package.)
func corpusPattern(t testing.TB, name string) *syntax.Program {
	t.Helper()
	file := name + ".prose.md"
	src, err := os.ReadFile(filepath.Join(testenv.Corpus(t), file))
	if err != nil {
		t.Fatal(err)
	}
	f := diag.NewFile(file, src)
	var lines []syntax.Line
	section, in, off := false, false, 0
	for _, text := range strings.SplitAfter(string(src), "\n") {
		line, start := strings.TrimSuffix(text, "\n"), off
		off += len(text)
		switch {
		case strings.HasPrefix(line, "### "):
			section = strings.TrimSpace(line[4:]) == "Delegation"
		case section && !in && strings.HasPrefix(line, "```prose"):
			in = true
		case in && strings.HasPrefix(line, "```"):
			in, section = false, false
		case in:
			lines = append(lines, syntax.Line{Text: line, Off: diag.Pos(start)})
		}
	}
	prog, diags := syntax.Parse(f, lines)
	if diags.HasErrors() || prog == nil || len(lines) == 0 {
		t.Fatalf("load %s: no runnable Delegation: %v", name, diags)
	}
	return prog
}

func posAt(file string, line, col int) diag.Position {
	return diag.Position{File: file, Line: line, Col: col}
}

func mustParse(code string) *syntax.Program {
	prog, errs := syntax.ParseString("example.md", code)
	if errs.HasErrors() {
		panic(errs)
	}
	return prog
}
