package delegation

import (
	"context"
	"strings"
	"testing"
)

// A `throw usage` is a mistake of the spec's use, not a failed attempt:
// no try catches it, and a call whose service raised one fails at once
// with it (no retry, no on_fail fallback), through every enclosing try.
func TestUsageErrorIsNotCaught(t *testing.T) {
	e := runErr(t, "let budget = 0\ntry:\n  if budget < 1:\n    throw usage \"budget is {budget}, give at least 1\"\ncatch as e:\n  return \"caught\"\nreturn budget", nil, nil)
	if e.Kind != KindUsage || e.Catchable() || e.Pos.Line != 4 {
		t.Fatalf("got %s error %v (catchable %v)", e.Kind, e, e.Catchable())
	}
	if got := e.Error(); got != "test.md:4:5: usage error: budget is 0, give at least 1" {
		t.Fatalf("message: %q", got)
	}
}

func TestUsageErrorOfAServicePassesThroughCalls(t *testing.T) {
	inner := &Error{Pos: posAt("inner.md", 3, 3), Kind: KindUsage, Msg: "max_rounds is 0, but refine needs at least one round"}
	c := newCaller().on("target", func(context.Context, *CallRequest) (Value, error) { return nil, inner })
	h := &Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime()}
	code := "let target = t\nlet history = []\nrepeat 3 as attempt:\n  try:\n    let r = call target\n      retries 2\n      on_fail use \"fallback\"\n    return r\n  catch as problem:\n    append problem.message to history\nreturn history"
	e := runErr(t, code, map[string]Value{"t": svc("target")}, h)
	if e.Kind != KindUsage || e.Catchable() || e.Pos.Line != 5 || e.Slot != "target" || e.Attempts != 1 {
		t.Fatalf("got %s error %v (slot %q, attempts %d)", e.Kind, e, e.Slot, e.Attempts)
	}
	if got := e.Error(); !strings.HasPrefix(got, "test.md:5:13: usage error: call 'target': max_rounds is 0") || !strings.Contains(got, "\n\tat inner.md:3:3") {
		t.Fatalf("message: %q", got)
	}
	if n := c.calls.Load(); n != 1 {
		t.Fatalf("the refused call was made %d times, want 1", n)
	}
}

func TestThrowUsageParses(t *testing.T) {
	// `usage` is a word: alone, or followed by anything but a string, it
	// is a name.
	if got := mustRun(t, "let usage = \"plain\"\ntry:\n  throw usage\ncatch as e:\n  return e.kind + \" \" + e.message\n", nil, nil); got != `"throw plain"` {
		t.Fatalf("throw usage (a name): %s", got)
	}
	if got := mustRun(t, "let usage = { m: \"member\" }\ntry:\n  throw usage.m\ncatch as e:\n  return e.message\n", nil, nil); got != `"member"` {
		t.Fatalf("throw usage.m: %s", got)
	}
}

// Refusal runs a program's leading checks of what is known before a run:
// only the statements that read nothing else, up to the first call.
func TestRefusalRunsOnlyWhatIsKnown(t *testing.T) {
	prog := parse(t, "if rounds < 1:\n  throw usage \"rounds is {rounds}\"\nif brief is null:\n  throw usage \"no brief\"\nlet r = call w\nif rounds > 5:\n  throw usage \"too many\"\nreturn r")
	if e, st := Refusal(prog, map[string]Value{"rounds": int64(0)}); e == nil || e.Msg != "rounds is 0" || st != prog.Body[0] {
		t.Errorf("rounds 0: %v %v", e, st)
	}
	// brief is unknown (an input), and the check after the call is left
	// to the run
	if e, _ := Refusal(prog, map[string]Value{"rounds": int64(9)}); e != nil {
		t.Errorf("rounds 9: %v", e)
	}
	if got := ReadNames(prog.Body[0]); len(got) != 1 || got[0] != "rounds" {
		t.Errorf("ReadNames: %v", got)
	}
}
