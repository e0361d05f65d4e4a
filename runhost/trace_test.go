package runhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/bind/bindtest"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

const judgedSpec = `---
name: judged
kind: pattern
---

# Judged

Asks a worker, then decides in plain words whether the answer will do.

### Slots

- ` + "`worker`" + `
  - requires: task
  - ensures: an answer

### Requires

- Pattern instance receives:
    worker: string -- the service
    task: string   -- the task

### Ensures

- result: the answer, or null

### Delegation

` + "```prose" + `
let answer = call worker
  task: task
if answer reads like a finished piece of work:
  return { result: answer }
return { result: null }
` + "```" + `
`

// fixedJudge answers every judgment with holds and counts them.
type fixedJudge struct {
	holds bool
	n     int
}

func (f *fixedJudge) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	f.n++
	return delegation.Verdict{Holds: f.holds, Asked: true, Model: "fake", TokensIn: 10, TokensOut: 2}, nil
}

// judgedRun runs src; with trace non-nil, traced into it.
func judgedRun(t *testing.T, src string, mod func(*RunOptions), trace ...*[]byte) (delegation.Value, *int, error) {
	t.Helper()
	sp, diags := spec.Parse("judged.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("fixture:\n%s", diags)
	}
	calls := 0
	worker := &service.Func{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		calls++
		return "a draft", nil
	}}
	env := &bind.Env{LLM: func(*bind.Slot) (service.Service, error) { return worker, nil }}
	opts := RunOptions{Spec: sp, Env: env, Bindings: *bindtest.Must("slot:worker=llm", "input:task=write")}
	if mod != nil {
		mod(&opts)
	}
	if len(trace) > 0 {
		v, tr, err := traceRun(opts)
		*trace[0] = tr
		return v, &calls, err
	}
	v, err := Run(context.Background(), opts)
	return v, &calls, err
}

func TestNoModelStopsBeforeAnyService(t *testing.T) {
	_, calls, err := judgedRun(t, judgedSpec, nil)
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a *bind.UsageError", err)
	}
	for _, w := range []string{"judged.prose.md:31:4: ", `condition "answer reads like a finished piece of work" needs a model`, "PROSE_MODEL"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if *calls != 0 {
		t.Errorf("the worker ran %d times before the refusal", *calls)
	}
}

func TestModelJudgeAnswers(t *testing.T) {
	j := &fixedJudge{holds: true}
	var trace []byte
	v, _, err := judgedRun(t, judgedSpec, func(o *RunOptions) { o.ModelJudge = j }, &trace)
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := delegation.ToJSON(v); string(raw) != `{"result":"a draft"}` || j.n != 1 {
		t.Errorf("got %s after %d judgments", raw, j.n)
	}
	o := outcome{trace: parseTrace(t, trace)}
	js := o.traceOf("judge")
	if len(js) != 1 || js[0]["asked"] != true || js[0]["holds"] != true || js[0]["tokens_in"] != 10.0 ||
		len(js[0]["values"].(string)) != 64 || js[0]["cond"] != "answer reads like a finished piece of work" {
		t.Errorf("judge records: %v", js)
	}
	end := o.traceOf("final")[0]["totals"].(map[string]any)
	if end["judgments"] != 1.0 || end["model_judgments"] != 1.0 || end["tokens_in"] != 10.0 || end["calls"] != 1.0 {
		t.Errorf("totals = %v", end)
	}
}

func TestConditionInBranchFailsAtRunTime(t *testing.T) {
	src := strings.Replace(judgedSpec, "if answer reads like", "if task == \"judge\":\n  if answer reads like", 1)
	src = strings.Replace(src, "  return { result: answer }", "    return { result: answer }", 1)
	v, calls, err := judgedRun(t, src, nil)
	if err != nil || v == nil || *calls != 1 {
		t.Fatalf("a run that never reaches the condition: v=%v err=%v calls=%d", v, err, *calls)
	}
	_, _, err = judgedRun(t, src, func(o *RunOptions) { o.Bindings.Inputs[0].Value = "judge" })
	var de *delegation.Error
	if !errors.As(err, &de) || de.Kind != delegation.KindJudge || !strings.Contains(err.Error(), "judged.prose.md:32:6: ") {
		t.Errorf("err = %v, want a judge error at the condition", err)
	}
}

// The trace is the journal's records: a header with the spec's digest,
// start (with the arguments' value), end, final; secrets are scrubbed.
func TestTraceRecordsAndSecrets(t *testing.T) {
	b, err := bindtest.Parse([]string{`slot:service=exec:echo '{"token":"sk-sekrit-123"}'`})
	if err != nil {
		t.Fatal(err)
	}
	_, trace, err := traceRun(RunOptions{Path: demo(t, "untimed/fault.prose.md"), Bindings: b, Env: &bind.Env{Dir: t.TempDir()}}, "sk-sekrit-123", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(trace), "sekrit") || !strings.Contains(string(trace), `"token":"[redacted]"`) {
		t.Errorf("secret not scrubbed:\n%s", trace)
	}
	lines := parseTrace(t, trace)
	types := []string{}
	for _, l := range lines {
		types = append(types, l["t"].(string))
	}
	if strings.Join(types, " ") != "header start end final" {
		t.Errorf("record types %v", types)
	}
	if h := lines[0]; h["v"] != 2.0 || len(h["spec_sha256"].(string)) != 64 {
		t.Errorf("header = %v", h)
	}
	call := lines[1]
	if call["id"] != "L29" || call["slot"] != "service" || call["attempt"] != 1.0 || mustJSON(t, call["args_value"]) != `{"task":"do it"}` || len(call["args"].(string)) != 64 {
		t.Errorf("start = %v", call)
	}
	if end := lines[3]; end["status"] != "ok" || mustJSON(t, end["result"]) != `{"token":"[redacted]"}` {
		t.Errorf("final = %v", end)
	}
}

func TestRequestCarriesHost(t *testing.T) {
	var seen *delegation.Host
	svc := &service.Func{Name: "worker", Fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		seen = req.Host
		return "ok", nil
	}}
	sp, _ := spec.Parse("judged.prose.md", []byte(judgedSpec))
	p, err := Prepare(RunOptions{Spec: sp, ModelJudge: &fixedJudge{},
		Env:      &bind.Env{LLM: func(*bind.Slot) (service.Service, error) { return svc, nil }},
		Bindings: *bindtest.Must("slot:worker=llm", "input:task=x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.Caller != p.Host.Caller || seen.Recorder == nil || !seen.Scope.IsZero() {
		t.Errorf("service saw host %+v, want the run's (%+v)", seen, p.Host)
	}
}

// A trace keeps '<', '>' and '&' as written: errors and nested call ids
// stay greppable, and a secret holding one of them is still scrubbed.
func TestTraceKeepsMarkupCharacters(t *testing.T) {
	b, err := bindtest.Parse([]string{`slot:service=exec:echo 'a<b> & key=tok&en q=x"y' >&2; exit 1`})
	if err != nil {
		t.Fatal(err)
	}
	_, trace, err := traceRun(RunOptions{Path: demo(t, "untimed/fault.prose.md"), Bindings: b, Env: &bind.Env{Dir: t.TempDir()}}, "tok&en", `x"y`)
	if err == nil {
		t.Fatal("the failing service did not fail the run")
	}
	out := string(trace)
	if strings.Contains(out, "tok&en") || strings.Contains(out, `tok\u0026en`) {
		t.Errorf("secret not scrubbed:\n%s", out)
	}
	if strings.Contains(out, `x\"y`) {
		t.Errorf("secret with a quote not scrubbed:\n%s", out)
	}
	if !strings.Contains(out, `"err":"exit status 1: a<b> & key=[redacted] q=[redacted]"`) {
		t.Errorf("error text not kept as written:\n%s", out)
	}
	parseTrace(t, trace)
}
