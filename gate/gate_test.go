package gate_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
)

const releaseSpec = "---\nname: release\nkind: pattern\n---\n\n# Release\n\nAsks which release, then ships it.\n\n### Slots\n\n- `shipper`\n\n### Delegation\n\n```prose\n" +
	"let prepared = call shipper\n  step: \"prepare\"\n" +
	"let release = ask_user \"Which release?\"\n" +
	"let verdict = gate { summary: release, options: [\"ship\", \"hold\"] }\n  timeout 2h\n  on_fail use \"hold\"\n" +
	"let shipped = call shipper\n  step: release\n" +
	"return { release, verdict, shipped }\n```\n"

// fixture is a spec whose shipper counts its calls, run under a clock the
// test moves.
type fixture struct {
	dir   string
	calls atomic.Int64
	now   time.Time
	opts  run.Options
	req   run.Request
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{dir: t.TempDir(), now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	if err := os.WriteFile(filepath.Join(f.dir, "release.prose.md"), []byte(releaseSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	shipper := &service.Func{Name: "shipper", Fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		f.calls.Add(1)
		step, _ := req.Args.Get("step")
		return "did " + delegation.Text(step), nil
	}}
	f.opts = run.Options{RunDir: filepath.Join(f.dir, "runs"), Services: map[string]service.Service{"s": shipper},
		GateClock: func() time.Time { return f.now }}
	f.req = run.Request{Spec: "release.prose.md", Dir: f.dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "shipper", Value: "go:s"}}}}
	return f
}

func (f *fixture) answer(t *testing.T, id, gate, value string) {
	t.Helper()
	if _, err := journal.Answer(f.opts.RunDir, id, gate, json.RawMessage(value), journal.Options{Now: func() time.Time { return f.now }}); err != nil {
		t.Fatalf("answer %s %s: %v", gate, value, err)
	}
}

// waitsAt checks that err is a suspension at the gate of line, and that
// the journal lists that gate, with its question, as the one waiting.
func waitsAt(t *testing.T, f *fixture, res *run.Result, err error, path, question string) {
	t.Helper()
	w := delegation.Waiting(err)
	if w == nil || w.Path.Key() != path {
		t.Fatalf("want the run to wait at %s, got %v", path, err)
	}
	gates, jerr := journal.Waiting(f.opts.RunDir, res.RunID)
	if jerr != nil || len(gates) != 1 || gates[0].Path.Key() != path || string(gates[0].Question) != question {
		t.Fatalf("journal.Waiting: %+v, %v; want %s asking %s", gates, jerr, path, question)
	}
	if s := journal.Summarize(filepath.Join(f.opts.RunDir, res.RunID, journal.FileName)); s.Status != journal.StatusWaiting {
		t.Fatalf("status %s, want waiting", s.Status)
	}
}

func TestGateSuspendsAnswerResumes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	res, err := run.Local{}.Run(ctx, f.req, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
	if f.calls.Load() != 1 {
		t.Fatalf("%d shipper calls before the gate, want 1", f.calls.Load())
	}
	// not answered yet: a resume waits at the same gate again, running nothing
	res, err = run.Resume(ctx, res.RunID, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
	f.answer(t, res.RunID, "", `"v1.2"`)
	res, err = run.Resume(ctx, res.RunID, f.opts)
	waitsAt(t, f, res, err, "L20", `{"summary":"v1.2","options":["ship","hold"]}`)
	f.now = f.now.Add(time.Hour) // within the gate's 2h
	f.answer(t, res.RunID, "L20", `{"choice":"ship"}`)
	res, err = run.Resume(ctx, res.RunID, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"release":"v1.2","verdict":{"choice":"ship"},"shipped":"did v1.2"}`
	if got := js(t, res.Value); got != want {
		t.Fatalf("result %s, want %s", got, want)
	}
	if f.calls.Load() != 2 {
		t.Fatalf("%d shipper calls, want 2: a resume runs no finished call again", f.calls.Load())
	}
	// a second resume runs nothing and gives the same result
	res, err = run.Resume(ctx, res.RunID, f.opts)
	if err != nil || js(t, res.Value) != want || f.calls.Load() != 2 || res.Answered != res.Calls {
		t.Fatalf("second resume: %v %v, %d calls (%d of %d answered)", err, res.Value, f.calls.Load(), res.Answered, res.Calls)
	}
	// and a replay needs nobody
	res, err = run.Replay(ctx, res.RunID, f.opts)
	if err != nil || js(t, res.Value) != want {
		t.Fatalf("replay: %v %v", err, res.Value)
	}
	if gates, _ := journal.Waiting(f.opts.RunDir, res.RunID); len(gates) != 0 {
		t.Fatalf("a finished run waits on %+v", gates)
	}
}

func TestGateTimeoutTakesFallback(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	res, err := run.Local{}.Run(ctx, f.req, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
	f.answer(t, res.RunID, "", `"v2"`)
	res, err = run.Resume(ctx, res.RunID, f.opts)
	waitsAt(t, f, res, err, "L20", `{"summary":"v2","options":["ship","hold"]}`)
	// the timeout runs from when the gate was first asked, across sessions
	f.now = f.now.Add(time.Hour)
	res, err = run.Resume(ctx, res.RunID, f.opts)
	waitsAt(t, f, res, err, "L20", `{"summary":"v2","options":["ship","hold"]}`)
	f.now = f.now.Add(time.Hour)
	_, aerr := journal.Answer(f.opts.RunDir, res.RunID, "L20", json.RawMessage(`"ship"`), journal.Options{Now: func() time.Time { return f.now }})
	if aerr == nil || !strings.Contains(aerr.Error(), "timed out at 2026-12-01T12:00:00Z") {
		t.Fatalf("an answer after the deadline: %v", aerr)
	}
	res, err = run.Resume(ctx, res.RunID, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"release":"v2","verdict":"hold","shipped":"did v2"}`
	if got := js(t, res.Value); got != want {
		t.Fatalf("result %s: want the fallback", got)
	}
	// the fallback is journaled: a resume and a replay take it again
	for _, rerun := range []func(context.Context, string, run.Options) (*run.Result, error){run.Resume, run.Replay} {
		if res, err = rerun(ctx, res.RunID, f.opts); err != nil || js(t, res.Value) != want {
			t.Fatalf("re-run after the fallback: %v", err)
		}
	}
	if f.calls.Load() != 2 {
		t.Fatalf("%d shipper calls, want 2", f.calls.Load())
	}
}

func TestAnswerRefusals(t *testing.T) {
	f := newFixture(t)
	res, err := run.Local{}.Run(context.Background(), f.req, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
	opt := journal.Options{}
	for _, tc := range []struct{ gate, value, want string }{
		{"", `{"a":1}`, "asks for a string"},
		{"L99", `"x"`, "has no gate L99 waiting; it waits on L19"},
	} {
		if _, err := journal.Answer(f.opts.RunDir, res.RunID, tc.gate, json.RawMessage(tc.value), opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("answer %s %s: %v, want %q", tc.gate, tc.value, err, tc.want)
		}
	}
	if _, err := journal.Answer(f.opts.RunDir, "nope", "", json.RawMessage(`"x"`), opt); err == nil {
		t.Error("an unknown run was answered")
	}
}

func js(t *testing.T, v delegation.Value) string {
	t.Helper()
	b, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// On a terminal each gate is asked in place: a line answers it, a line
// that is no answer asks again, and the end of the input suspends the run.
func TestLinePromptAsksInPlace(t *testing.T) {
	f := newFixture(t)
	var asked strings.Builder
	f.opts.GatePrompt = gate.LinePrompt(strings.NewReader("v3\nmaybe\nship\n"), &asked)
	res, err := run.Local{}.Run(context.Background(), f.req, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := js(t, res.Value); got != `{"release":"v3","verdict":{"choice":"ship"},"shipped":"did v3"}` {
		t.Fatalf("result %s", got)
	}
	want := "ask_user L19: Which release?\n> " +
		"gate L20: {\"summary\":\"v3\",\"options\":[\"ship\",\"hold\"]}\n  (until 2026-12-01T12:00:00Z)\n[ship/hold] > " +
		"  \"maybe\" is not one of the options [\"ship\", \"hold\"]\n" +
		"gate L20: {\"summary\":\"v3\",\"options\":[\"ship\",\"hold\"]}\n  (until 2026-12-01T12:00:00Z)\n[ship/hold] > "
	if asked.String() != want {
		t.Fatalf("asked\n%q\nwant\n%q", asked.String(), want)
	}
	// a replay asks nobody
	f.opts.GatePrompt = nil
	if res, err = run.Replay(context.Background(), res.RunID, f.opts); err != nil || js(t, res.Value) != `{"release":"v3","verdict":{"choice":"ship"},"shipped":"did v3"}` {
		t.Fatalf("replay: %v", err)
	}

	f = newFixture(t)
	f.opts.GatePrompt = gate.LinePrompt(strings.NewReader(""), io.Discard)
	res, err = run.Local{}.Run(context.Background(), f.req, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
}
