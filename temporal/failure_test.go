package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	tsdk "go.temporal.io/sdk/temporal"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/run"
)

// acrossTemporal is what a starter's Get returns for the workflow's
// error werr: werr through the failure converter of fc (as the cluster
// keeps it), inside the SDK's wrapping.
func acrossTemporal(t *testing.T, fc converter.FailureConverter, werr error) error {
	t.Helper()
	back := fc.FailureToError(fc.ErrorToFailure(werr))
	return fmt.Errorf("workflow execution error (type: %s, workflowID: wf-1, runID: 0b1e): %w", WorkflowName, back)
}

// Every run.Code a workflow fails with reaches the starter as that Code,
// with the local run's message and, for the evaluator's errors, a
// *delegation.Error that prints as the local one.
func TestFailureCarriesTheRunCode(t *testing.T) {
	_, fc, err := converters(filepath.Join(t.TempDir(), "temporal.key"))
	if err != nil {
		t.Fatal(err)
	}
	pos := diag.Position{File: "loop.prose.md", Line: 14, Col: 3}
	path := delegation.MustParsePath("L14/2/3")
	evalErrs := map[run.Code]*delegation.Error{
		run.CodeFailed: {Kind: delegation.KindCall, Pos: pos, Path: path, Msg: "call worker failed after 2 attempts: exit status 3",
			Slot: "worker", Attempts: 2, Chain: []string{"inner.prose.md:3:1"}},
		run.CodeCanceled:   {Kind: delegation.KindCanceled, Msg: "canceled"},
		run.CodeStepBudget: {Kind: delegation.KindLimit, Limit: delegation.LimitSteps, Pos: pos, Path: path, Msg: "the run passed its 50 steps"},
		run.CodeValueSize:  {Kind: delegation.KindLimit, Limit: delegation.LimitValueSize, Pos: pos, Path: path, Msg: "a value of 3 bytes passed the 2"},
	}
	n := 0
	for c := run.Code(1); !strings.HasPrefix(c.String(), "code("); c++ {
		n++
		var cause error = fmt.Errorf("it failed (%s)", c)
		errType := errRuntime
		de := evalErrs[c]
		if de != nil {
			cause, errType = de, "prose."+de.Kind
		}
		local := &run.Error{Code: c, Err: cause}
		got := runError(acrossTemporal(t, fc, failRun(errType, local)))
		var re *run.Error
		if !errors.As(got, &re) || re.Code != c || run.CodeOf(got) != run.CodeOf(local) {
			t.Errorf("%s: got %T %v (code %s), want a *run.Error of that code", c, got, got, run.CodeOf(got))
			continue
		}
		if got.Error() != local.Error() {
			t.Errorf("%s: message %q, want the local %q", c, got.Error(), local.Error())
		}
		var gde *delegation.Error
		switch {
		case de == nil && errors.As(got, &gde):
			t.Errorf("%s: a *delegation.Error %v where the run had none", c, gde)
		case de != nil && !errors.As(got, &gde):
			t.Errorf("%s: no *delegation.Error in %v", c, got)
		case de != nil && !reflect.DeepEqual(gde, de):
			t.Errorf("%s: delegation error\n%#v\nwant\n%#v", c, gde, de)
		}
	}
	if n < 9 {
		t.Fatalf("only %d codes tried", n)
	}
}

// A failure from a worker that sends no code (an older prose), or one
// this prose does not know, gets the Code its type implies.
func TestFailureWithoutCode(t *testing.T) {
	_, fc, err := converters(filepath.Join(t.TempDir(), "temporal.key"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		errType string
		detail  any
		want    run.Code
	}{
		{"prose.usage", nil, run.CodeUsage},
		{"prose.spec", nil, run.CodeInvalidSpec},
		{"prose.canceled", nil, run.CodeCanceled},
		{"prose.call", nil, run.CodeFailed},
		{"prose.limit", nil, run.CodeFailed},
		{"prose.runtime", nil, run.CodeFailed},
		{"prose.missing-program", nil, run.CodeFailed},
		{"some.other", nil, run.CodeFailed},
		{"prose.usage", failureDetail{Code: "a-code-of-tomorrow"}, run.CodeUsage},
		{"prose.throw", failureDetail{Code: "a-code-of-tomorrow"}, run.CodeFailed},
	} {
		msg := "loop.prose.md:14:3: it failed"
		var details []any
		if c.detail != nil {
			details = append(details, c.detail)
		}
		got := runError(acrossTemporal(t, fc, tsdk.NewNonRetryableApplicationError(msg, c.errType, nil, details...)))
		var re *RunError
		if run.CodeOf(got) != c.want || !errors.As(got, new(*run.Error)) || !errors.As(got, &re) || got.Error() != msg ||
			re.Kind != strings.TrimPrefix(c.errType, "prose.") {
			t.Errorf("%s %v: got %v (code %s), want code %s, message %q", c.errType, c.detail, got, run.CodeOf(got), c.want, msg)
		}
		if errors.As(got, new(*delegation.Error)) {
			t.Errorf("%s: a *delegation.Error from a failure that sent none", c.errType)
		}
	}
}

// A cancelled or terminated run is CodeCanceled; an error that is not
// the run's is left as it is.
func TestFailureOtherEnds(t *testing.T) {
	for _, err := range []error{tsdk.NewCanceledError(), &tsdk.TerminatedError{}} {
		if got := runError(fmt.Errorf("workflow execution error: %w", err)); run.CodeOf(got) != run.CodeCanceled || strings.Contains(got.Error(), "workflow execution error") {
			t.Errorf("%T: got %v (code %s), want a cancelled run", err, got, run.CodeOf(got))
		}
	}
	conn := errors.New("connection refused")
	if got := runError(conn); got != conn {
		t.Errorf("a connection's error became %v", got)
	}
}

// loopSpec is a spec that counts to 100, then calls its worker with the
// count; it returns what the worker answers.
const loopSpec = "---\nname: loop\nkind: pattern\n---\n\n# Loop\n\nCounts, then asks.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nlet n = 0\nrepeat 100:\n  n = n + 1\nlet r = call worker\n  n: n\nreturn r\n```\n"

// Against a real server: a run that fails on Temporal fails with the
// run.Code and the message of the same run done locally.
func TestE2EFailureSameCodeAsLocal(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})
	path := filepath.Join(t.TempDir(), "loop.prose.md")
	if err := os.WriteFile(path, []byte(loopSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		worker string
		limits run.Limits
		want   run.Code
	}{
		{"exec:echo 100", run.Limits{MaxSteps: 50}, run.CodeStepBudget},
		{`exec:echo '"` + strings.Repeat("x", 64) + `"'`, run.Limits{MaxValueBytes: 32}, run.CodeValueSize},
		{"exec:echo disk full >&2; exit 3", run.Limits{}, run.CodeFailed},
	} {
		req := run.Request{Spec: path, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: c.worker}}}, Limits: c.limits}
		o := run.Options{Getenv: func(string) string { return "" }}
		_, lerr := run.Local{}.Run(context.Background(), req, o)
		if run.CodeOf(lerr) != c.want {
			t.Fatalf("local run of %s with %+v: %v (code %s), want code %s", c.worker, c.limits, lerr, run.CodeOf(lerr), c.want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, terr := (&Engine{Conn: conn, Client: cl}).Run(ctx, req, o)
		cancel()
		var re *run.Error
		if !errors.As(terr, &re) || run.CodeOf(terr) != c.want || terr.Error() != lerr.Error() {
			t.Errorf("%s with %+v:\nlocal    %v (code %s)\ntemporal %v (code %s)", c.worker, c.limits, lerr, run.CodeOf(lerr), terr, run.CodeOf(terr))
		}
	}
}
