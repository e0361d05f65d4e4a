package temporal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	tsdk "go.temporal.io/sdk/temporal"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/run"
)

func guardRequest(t *testing.T, guard, target string) Request {
	slots, err := bind.ParseAssignments("--slot", []string{"guard=" + guard, "target=" + target})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := bind.ParseAssignments("--input", []string{"task_brief=go"})
	req, err := Resolve(ResolveOptions{Path: "std/patterns/guard.prose.md", Bindings: bind.Settings{Slots: slots, Inputs: in}})
	if err != nil {
		t.Fatal(err)
	}
	return roundTrip(t, req)
}

// A worker without a binding's program fails the run with an error naming
// the program and the binding, once: it is not retried, and the spec's
// on_fail does not hide it.
func TestMissingProgramFailsTheRun(t *testing.T) {
	for _, prog := range []string{"./no-such-program --flag", "no-such-program-in-path"} {
		env := newTestEnv(t, nil)
		env.ExecuteWorkflow(WorkflowName, guardRequest(t, "exec:"+prog, "exec:echo '\"ran\"'"))
		err := env.GetWorkflowError()
		var app *tsdk.ApplicationError
		if !errors.As(err, &app) || app.Type() != errMissingProgram {
			t.Fatalf("%s: error %v, want a %s failure", prog, err, errMissingProgram)
		}
		name := strings.Fields(prog)[0]
		if msg := app.Message(); !strings.Contains(msg, "guard=exec:"+prog) || !strings.Contains(msg, "program "+name+" not found") {
			t.Errorf("%s: message %q does not name the binding and the program", prog, msg)
		}
		if !app.NonRetryable() {
			t.Errorf("%s: the failure is retryable", prog)
		}
	}
}

// countingJudge counts the judgments that reach it.
type countingJudge struct {
	mu sync.Mutex
	n  int
}

func (c *countingJudge) Judge(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return containsJudge{}.Judge(ctx, j)
}

// The model's verdicts are cached in the workflow's state: a condition
// asked again with the same values is answered without an activity, also
// across loop iterations.
func TestModelVerdictsCachedInTheWorkflow(t *testing.T) {
	svc := svcPath(t)
	c := engineCase{name: "cache", pattern: "retry-with-learning",
		slots: func(svc string) []string {
			return []string{"target=" + binding(svc, "target", `"EMPTY"`, `"EMPTY"`, `"rows"`)}
		},
		config: []string{"failure_criteria=contains EMPTY", "max_retries=5"}, inputs: []string{"task_brief=fetch"}}
	local := &countingJudge{}
	c.judge = local
	lo := runLocal(t, &c, svc)
	remote := &countingJudge{}
	c.judge = remote
	ro := runWorkflow(t, &c, svc)
	if lo.result != ro.result || lo.err != ro.err {
		t.Fatalf("local %q %s, temporal %q %s", lo.err, lo.result, ro.err, ro.result)
	}
	if local.n != 3 {
		t.Fatalf("the local run asked the judge %d times, want 3 (EMPTY, EMPTY, rows)", local.n)
	}
	if remote.n != 2 {
		t.Errorf("the workflow asked the judge %d times, want 2 (the second EMPTY from its cache)", remote.n)
	}
}

// A Contract Markdown graph whose nodes are rendered by a model starts
// without a model named for the run (the workers serve renders with their
// own model client); on a worker without a model, the render fails naming
// the node and what the worker lacks.
func TestContractRendersNeedAModel(t *testing.T) {
	b := bind.Settings{Inputs: []bind.Assignment{{Name: "changes", Value: "a; b"}, {Name: "audience", Value: "users"}}}
	req, err := Resolve(ResolveOptions{Path: "../testdata/run/release-note.prose.md", Bindings: b})
	if err != nil {
		t.Fatalf("a render the worker serves was refused on the starter: %v", err)
	}
	env := newTestEnv(t, nil)
	env.ExecuteWorkflow(WorkflowName, roundTrip(t, req))
	err = env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "rendering headline-writer needs a model, and this worker has no model client") {
		t.Errorf("err = %v, want the worker's missing model named", err)
	}
}

// A value too large for a Temporal payload fails the attempt with a clear
// error (an on_fail can catch it), rather than failing the server's
// limits after the fact.
func TestValueTooLargeForAPayload(t *testing.T) {
	env := newTestEnv(t, nil)
	big := "exec:head -c 2500000 /dev/zero | tr '\\0' x"
	env.ExecuteWorkflow(WorkflowName, guardRequest(t, `exec:echo '{"proceed":true,"reason":"ok"}'`, big))
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "a call's value travels through Temporal, which carries at most 2000000") {
		t.Errorf("err = %v, want the payload limit named", err)
	}
}

// The engine refuses a request that does not bind before it connects:
// its Conn names no server, so reaching the dial would fail otherwise.
func TestEngineRefusesBeforeConnecting(t *testing.T) {
	var eng run.Engine = &Engine{}
	req := run.Request{Spec: "std/patterns/guard.prose.md", Bindings: bind.Settings{
		Slots: []bind.Assignment{{Name: "gaurd", Value: "exec:true"}, {Name: "target", Value: "exec:true"}},
	}}
	_, err := eng.Run(context.Background(), req, run.Options{})
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "gaurd") {
		t.Fatalf("got %v (%T), want a usage error naming gaurd", err, err)
	}
	_, err = eng.(run.Starter).Start(context.Background(), req, run.Options{})
	if !errors.As(err, &ue) {
		t.Fatalf("Start: got %v (%T), want a usage error", err, err)
	}
	// a base URL is the workers' to choose
	withURL := req
	withURL.BaseURL = "http://localhost:1/v1"
	var rue *run.UsageError
	if _, err := eng.Run(context.Background(), withURL, run.Options{}); !errors.As(err, &rue) || !strings.Contains(err.Error(), "base URL") {
		t.Fatalf("with a base URL: got %v, want a usage error", err)
	}
	// a request that binds reaches the connection
	req.Bindings.Slots[0].Name = "guard"
	req.Bindings.Inputs = []bind.Assignment{{Name: "task_brief", Value: "x"}}
	if _, err := eng.Run(context.Background(), req, run.Options{}); err == nil || !strings.Contains(err.Error(), "no Temporal address") {
		t.Fatalf("got %v, want the missing address", err)
	}
}
