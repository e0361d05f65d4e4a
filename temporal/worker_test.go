package temporal

import (
	"errors"
	"strings"
	"testing"

	tsdk "go.temporal.io/sdk/temporal"

	"github.com/proselang/prose/patterns"
)

func guardRequest(t *testing.T, guard, target string) Request {
	slots, err := patterns.ParseAssignments("--slot", []string{"guard=" + guard, "target=" + target})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := patterns.ParseAssignments("--input", []string{"task_brief=go"})
	req, err := Resolve(ResolveOptions{Path: "std/patterns/guard.prose.md", Bindings: patterns.Bindings{Slots: slots, Inputs: in}})
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
