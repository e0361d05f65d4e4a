package patterns

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
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

func judgedRun(t *testing.T, src string, mod func(*RunOptions)) (delegation.Value, *int, error) {
	t.Helper()
	sp, diags := spec.Parse("judged.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("fixture:\n%s", diags)
	}
	calls := 0
	worker := &FuncService{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		calls++
		return "a draft", nil
	}}
	env := &Env{LLM: func(*SlotBinding) (Service, error) { return worker, nil }}
	opts := RunOptions{Spec: sp, Env: env, Bindings: *bindings("slot:worker=llm", "input:task=write")}
	if mod != nil {
		mod(&opts)
	}
	v, err := Run(context.Background(), opts)
	return v, &calls, err
}

func TestNoModelStopsBeforeAnyService(t *testing.T) {
	_, calls, err := judgedRun(t, judgedSpec, nil)
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a *UsageError", err)
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
	var trace bytes.Buffer
	v, _, err := judgedRun(t, judgedSpec, func(o *RunOptions) { o.ModelJudge = j; o.Trace = &trace })
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := delegation.ToJSON(v); string(raw) != `{"result":"a draft"}` || j.n != 1 {
		t.Errorf("got %s after %d judgments", raw, j.n)
	}
	o := outcome{trace: parseTrace(t, trace.Bytes())}
	js := o.traceOf("judgment")
	if len(js) != 1 || js[0]["asked"] != true || js[0]["holds"] != true || js[0]["tokens_in"] != 10.0 ||
		!strings.HasPrefix(js[0]["values_digest"].(string), "sha256:") || js[0]["condition"] != "answer reads like a finished piece of work" {
		t.Errorf("judgment records: %v", js)
	}
	end := o.traceOf("run.end")[0]["totals"].(map[string]any)
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

func TestTraceRunStartAndSecrets(t *testing.T) {
	var trace bytes.Buffer
	o := runSpec(t, demo(t, "fault.prose.md"), []string{`slot:service=exec:echo '{"token":"sk-sekrit-123"}'`},
		func(o *RunOptions) { o.Trace = &trace; o.Secrets = []string{"sk-sekrit-123", ""} })
	if o.err != nil {
		t.Fatal(o.err)
	}
	if strings.Contains(trace.String(), "sekrit") || !strings.Contains(trace.String(), `"token":"***"`) {
		t.Errorf("secret not scrubbed:\n%s", trace.String())
	}
	lines := parseTrace(t, trace.Bytes())
	types := []string{}
	for _, l := range lines {
		types = append(types, l["type"].(string))
	}
	if strings.Join(types, " ") != "run.start call.start call.end run.end" {
		t.Errorf("record types %v", types)
	}
	start := lines[0]
	if start["name"] != "fault" || !strings.HasPrefix(start["digest"].(string), "sha256:") || start["max_parallel"] != 8.0 {
		t.Errorf("run.start = %v", start)
	}
	if b := mustJSON(t, start["bindings"]); !strings.Contains(b, `"slots":[{"name":"service"`) {
		t.Errorf("bindings = %s", b)
	}
	call := lines[1]
	if call["id"] != "L29" || call["slot"] != "service" || call["attempt"] != 1.0 || mustJSON(t, call["args"]) != `{"task":"do it"}` {
		t.Errorf("call.start = %v", call)
	}
	if end := lines[3]; end["status"] != "ok" || mustJSON(t, end["result"]) != `{"token":"***"}` {
		t.Errorf("run.end = %v", end)
	}
}

func TestHostFromContextInServices(t *testing.T) {
	var seen *delegation.Host
	svc := &FuncService{Name: "worker", Fn: func(ctx context.Context, _ *delegation.CallRequest) (delegation.Value, error) {
		seen = HostFromContext(ctx)
		return "ok", nil
	}}
	sp, _ := spec.Parse("judged.prose.md", []byte(judgedSpec))
	p, err := Prepare(RunOptions{Spec: sp, ModelJudge: &fixedJudge{},
		Env:      &Env{LLM: func(*SlotBinding) (Service, error) { return svc, nil }},
		Bindings: *bindings("slot:worker=llm", "input:task=x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if seen != p.Host {
		t.Errorf("service saw host %p, want %p", seen, p.Host)
	}
}

// A trace keeps '<', '>' and '&' as written: errors and nested call ids
// stay greppable, and a secret holding one of them is still scrubbed.
func TestTraceKeepsMarkupCharacters(t *testing.T) {
	var trace bytes.Buffer
	o := runSpec(t, demo(t, "fault.prose.md"), []string{`slot:service=exec:echo 'a<b> & key=tok&en q=x"y' >&2; exit 1`},
		func(o *RunOptions) { o.Trace = &trace; o.Secrets = []string{"tok&en", `x"y`} })
	if o.err == nil {
		t.Fatal("the failing service did not fail the run")
	}
	out := trace.String()
	if strings.Contains(out, "tok&en") || strings.Contains(out, `tok\u0026en`) {
		t.Errorf("secret not scrubbed:\n%s", out)
	}
	if strings.Contains(out, `x\"y`) {
		t.Errorf("secret with a quote not scrubbed:\n%s", out)
	}
	if !strings.Contains(out, `"error":"exit status 1: a<b> & key=*** q=***"`) {
		t.Errorf("error text not kept as written:\n%s", out)
	}
	parseTrace(t, trace.Bytes())
}
