package std_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
)

// The pattern tests run the embedded library with runhost.Run, binding
// slots to testdata/std/svc.sh: a POSIX sh program that logs every call's
// JSON arguments to a file and answers with scripted replies. Each test
// then checks the pattern's Invariants from the result and the call log.

// harness is one pattern run's scratch space.
type harness struct {
	t   *testing.T
	log string // the call log written by svc.sh
	svc string // absolute path of svc.sh
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	svc, err := filepath.Abs(filepath.Join("..", "testdata", "std", "svc.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(svc); err != nil {
		t.Fatalf("test service missing: %v", err)
	}
	return &harness{t: t, log: filepath.Join(t.TempDir(), "calls.log"), svc: svc}
}

// shq quotes s for /bin/sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// svcBinding is the exec binding of a service logging as label and
// answering with replies in turn (see svc.sh).
func (h *harness) svcBinding(label string, replies ...string) string {
	parts := []string{"exec:LOG=" + shq(h.log), "sh", shq(h.svc), shq(label)}
	for _, r := range replies {
		parts = append(parts, shq(r))
	}
	return strings.Join(parts, " ")
}

// run is one pattern run's settings.
type run struct {
	pattern string   // "ratchet", or a path
	slots   []string // NAME=BINDING
	config  []string // NAME=VALUE
	inputs  []string // NAME=VALUE
	json    string   // --input-json
	judge   delegation.Judge
}

func assignments(t *testing.T, flag string, list []string) []bind.Assignment {
	t.Helper()
	out, err := bind.ParseAssignments(flag, list)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// run executes r and returns the result as decoded JSON.
func (h *harness) run(r run) (any, error) {
	h.t.Helper()
	return h.runOpts(context.Background(), r, nil)
}

func (h *harness) runOpts(ctx context.Context, r run, recs []delegation.Recorder) (any, error) {
	h.t.Helper()
	path := r.pattern
	if !strings.Contains(path, "/") {
		path = "std/patterns/" + path + ".prose.md"
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := runhost.Run(ctx, runhost.RunOptions{
		Path: path,
		Bindings: bind.Settings{
			Slots:     assignments(h.t, "--slot", r.slots),
			Config:    assignments(h.t, "--config", r.config),
			Inputs:    assignments(h.t, "--input", r.inputs),
			InputJSON: r.json,
		},
		Env:        &bind.Env{Nested: callgraph.NestedSpec},
		ModelJudge: r.judge,
		Recorders:  recs,
	})
	if err != nil {
		return nil, err
	}
	return decode(h.t, v), nil
}

// mustRun is run that fails the test on an error.
func (h *harness) mustRun(r run) map[string]any {
	h.t.Helper()
	v, err := h.run(r)
	if err != nil {
		h.t.Fatalf("run %s: %v", r.pattern, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		h.t.Fatalf("run %s: result %v is not an object", r.pattern, v)
	}
	return m
}

func decode(t *testing.T, v delegation.Value) any {
	t.Helper()
	data, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("result %s: %v", data, err)
	}
	return out
}

// call is one logged service call.
type call struct {
	label string
	args  map[string]any
}

// calls returns the logged calls in the order they started, optionally
// only those of some labels.
func (h *harness) calls(labels ...string) []call {
	h.t.Helper()
	f, err := os.Open(h.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	var out []call
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		label, raw, _ := strings.Cut(sc.Text(), " ")
		if len(labels) > 0 && !contains(labels, label) {
			continue
		}
		c := call{label: label}
		if err := json.Unmarshal([]byte(raw), &c.args); err != nil {
			h.t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, c)
	}
	return out
}

// labels lists the labels of the logged calls, in order.
func (h *harness) labels() []string {
	var out []string
	for _, c := range h.calls() {
		out = append(out, c.label)
	}
	return out
}

// pids are the processes that svc.sh recorded before sleeping.
func (h *harness) pids() []int {
	data, _ := os.ReadFile(h.log + ".pids")
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// slept are the processes whose sleep ran to its end (not stopped).
func (h *harness) slept() []int {
	data, _ := os.ReadFile(h.log + ".slept")
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// waitGone fails unless every pid is gone within a minute (a guard against
// a process left running, not a measure: it returns as soon as they are).
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d is still running", pid)
		}
	}
}

// alive reports whether process pid still exists (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat))
	return len(fields) < 3 || fields[2] != "Z"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// js renders a decoded JSON value compactly, for comparisons and messages.
func js(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// wantJSON fails unless got renders as want.
func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %s: %v", want, err)
	}
	if js(got) != js(w) {
		t.Errorf("%s = %s, want %s", what, js(got), js(w))
	}
}

// containsJudge is the model judge of the tests: a criterion "contains X"
// holds when the subject's JSON contains X. Any other criterion is an
// error, so a test notices when a model would have been asked.
type containsJudge struct{}

func (containsJudge) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j.Cond == nil || j.Cond.Says == nil {
		return delegation.Verdict{}, errUnjudged(j)
	}
	crit, _ := j.Values.Get(j.Cond.Says.Criterion)
	subj, _ := j.Values.Get(j.Cond.Says.Subject)
	c, ok := crit.(string)
	word, found := strings.CutPrefix(c, "contains ")
	if !ok || !found {
		return delegation.Verdict{}, errUnjudged(j)
	}
	data, _ := delegation.ToJSON(subj)
	return delegation.Verdict{Holds: strings.Contains(string(data), word), Rule: "test-contains"}, nil
}

type unjudged string

func (u unjudged) Error() string { return string(u) }

func errUnjudged(j *delegation.Judgment) error {
	text := ""
	if j.Cond != nil {
		text = j.Cond.Text
	}
	return unjudged("test judge cannot decide " + strconv.Quote(text))
}
