package runhost

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
)

// TestFaultyServices runs one call against services that misbehave: each
// gives a clear run-time error at the call's .md position, never a panic
// or a hang, and the trace records the failed attempt and the run's end.
// Faults that end the call by themselves run under a one-hour timeout
// (untimed/fault.prose.md), so a loaded machine cannot turn them into a
// timeout; only hang and stubborn need the 500ms one.
func TestFaultyServices(t *testing.T) {
	tests := []struct {
		mode    string
		fixture string
		want    string
	}{
		{"crash", "untimed/fault.prose.md", "exit status 3: fault: segmentation fault in the widget"},
		{"hang", "fault.prose.md", "timed out after 500ms"},
		{"garbage", "untimed/fault.prose.md", "neither JSON nor UTF-8 text"},
		{"flood", "untimed/fault.prose.md", "output exceeds the 8 MiB limit"},
		{"empty", "untimed/fault.prose.md", "produced no output"},
		// The program ignores SIGTERM: 500ms, then 1s of grace, then
		// SIGKILL. Whether its trap was set before the 500ms passed
		// depends on the machine's load, so only the cause is checked
		// here; TestExecIgnoresSIGTERM checks the grace itself.
		{"stubborn", "fault.prose.md", "timed out after 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			o := runSpec(t, demo(t, tt.fixture), []string{
				// exec: the program itself (not a shell around it) gets the signals.
				"slot:service=exec:exec sh " + shq(demo(t, "fault.sh")) + " " + tt.mode,
			})
			var de *delegation.Error
			if !errors.As(o.err, &de) || de.Kind != delegation.KindCall {
				t.Fatalf("err = %v, want a failed call", o.err)
			}
			msg := o.err.Error()
			if !strings.HasPrefix(msg, demo(t, tt.fixture)+":29:14: call 'service' failed after 1 attempt: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want the call's position and %q", msg, tt.want)
			}
			ends := o.traceOf("end")
			if len(ends) != 1 || !strings.Contains(fmt.Sprint(ends[0]["err"]), tt.want) {
				t.Errorf("trace end = %v", ends)
			}
			if run := o.traceOf("final"); len(run) != 1 || run[0]["status"] != "error" {
				t.Errorf("trace final = %v", run)
			}
		})
	}
}

func TestBadLoopCounts(t *testing.T) {
	for _, count := range []string{"-1", `"three"`, "2.5"} {
		t.Run(count, func(t *testing.T) {
			o := runSpec(t, demo(t, "count.prose.md"), []string{"slot:reporter=exec:cat", `json:{"count":` + count + `}`})
			var de *delegation.Error
			if !errors.As(o.err, &de) {
				t.Fatalf("err = %v, want a run-time error", o.err)
			}
			if !strings.HasPrefix(o.err.Error(), demo(t, "count.prose.md")+":31:8: repeat count must be a non-negative integer") {
				t.Errorf("error %q lacks the loop's position", o.err)
			}
			if o.events.count("call.start", "") != 0 {
				t.Error("the reporter ran")
			}
			if errs := o.traceOf("error"); len(errs) == 0 {
				t.Error("the trace has no error record")
			}
		})
	}
}

func TestStepBudget(t *testing.T) {
	o := runSpec(t, demo(t, "count.prose.md"), []string{"slot:reporter=exec:cat", "input:count=1000000"},
		func(o *RunOptions) { o.Limits.MaxSteps = 500 })
	var de *delegation.Error
	if !errors.As(o.err, &de) || de.Kind != delegation.KindLimit {
		t.Fatalf("err = %v, want the step budget", o.err)
	}
	if !strings.Contains(o.err.Error(), "500") {
		t.Errorf("error %q does not name the budget", o.err)
	}
}

func TestUnknownSlotInCall(t *testing.T) {
	o := runSpec(t, demo(t, "unknown-slot.prose.md"), []string{"slot:advancer=exec:cat"})
	var se *callgraph.SpecError
	if !errors.As(o.err, &se) {
		t.Fatalf("err = %v, want a *callgraph.SpecError", o.err)
	}
	msg := o.err.Error()
	if !strings.Contains(msg, "unknown-slot.prose.md:29:17: error: ") || !strings.Contains(msg, "did you mean 'advancer'") {
		t.Errorf("error %q", msg)
	}
	if len(o.trace) != 0 {
		t.Errorf("a refused spec wrote a trace: %v", o.trace)
	}
}

// TestGarbageStaysOutOfTheTrace: binary stderr, escape codes and invalid
// UTF-8 from a service leave every trace line valid JSON, and the error
// message free of control characters.
func TestGarbageStaysOutOfTheTrace(t *testing.T) {
	o := runSpec(t, demo(t, "untimed/fault.prose.md"), []string{
		`slot:service=exec:printf '\033[2J\033]0;pwned\007\377\376\001\002 crashed\r\n' >&2; printf '{"a":"\377"}'; exit 9`,
	})
	if o.err == nil {
		t.Fatal("no error")
	}
	msg := o.err.Error()
	if !strings.Contains(msg, "exit status 9: ??? crashed") {
		t.Errorf("error %q", msg)
	}
	for _, r := range o.trace {
		if e, ok := r["err"].(string); ok && strings.ContainsAny(e, "\x1b\x07\x01\r") {
			t.Errorf("control characters in the trace: %q", e)
		}
	}
	if len(o.traceOf("final")) != 1 {
		t.Errorf("trace: %v", o.trace)
	}
}

// A spec with a syntax error is refused with that error alone: checking
// what the parser recovered would add findings that are only its echoes,
// as prose lint already knows.
func TestSyntaxErrorIsReportedAlone(t *testing.T) {
	src := "---\nname: broken\nkind: pattern\n---\n\n# Broken\n\nA spec with a syntax error.\n\n### Slots\n\n- `svc`\n\n" +
		"### Delegation\n\n```prose\nlet x = call svc\nif x ==:\n  return nope\nreturn undefined_name\n```\n"
	path := filepath.Join(t.TempDir(), "broken.prose.md")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := runSpec(t, path, []string{"slot:svc=exec:cat"})
	var se *callgraph.SpecError
	if !errors.As(o.err, &se) || len(se.Diags) == 0 {
		t.Fatalf("err = %v, want a *callgraph.SpecError", o.err)
	}
	for _, d := range se.Diags {
		if !strings.HasPrefix(d.Code, "syntax/") {
			t.Errorf("a finding besides the syntax error: %s", d)
		}
	}
}

// The end of a flood of stderr, where a program's last word is, survives
// into the run's error.
func TestExecStderrFloodKeepsItsEnd(t *testing.T) {
	// The untimed fixture: a loaded machine may take longer than any short
	// timeout to push 200 kB through the pipe.
	o := runSpec(t, demo(t, "untimed/fault.prose.md"), []string{`slot:service=exec:head -c 200000 /dev/zero | tr '\0' x >&2; echo ' the real reason' >&2; exit 2`})
	if o.err == nil || !strings.HasSuffix(o.err.Error(), "xxx the real reason") {
		t.Errorf("err = %.200q...", o.err)
	}
}
