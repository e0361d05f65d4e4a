package delegation

import (
	"strings"
	"testing"
)

// An absent input is an error wherever it is read, and only tested by
// `is present` / `is null` (semantics.md 16a).
func TestAbsentInputs(t *testing.T) {
	globals := func() map[string]Value {
		return map[string]Value{"x": &Absent{Name: "x", Producer: "counter-events"}, "y": int64(2)}
	}
	for _, code := range []string{
		"return x",
		"return x + 1",
		"return y + x",
		"return x.total",
		`return "total {x}"`,
		"return { a: x }",
		"return [x]",
		"for e in x:\n  return e",
		"if x:\n  return 1",
		"let z = x\nreturn 1",
	} {
		e := runErr(t, code, globals(), nil)
		if e.Kind != KindRuntime || !strings.Contains(e.Msg, "'x' is absent: counter-events has not published it yet") || !strings.Contains(e.Msg, "`if x is present:`") {
			t.Errorf("%q: %v", code, e)
		}
	}
	// A natural-language condition that mentions it is not judged.
	host := &Host{Caller: newCaller(), Judge: fakeJudge(), Runtime: newFakeRuntime()}
	e := runErr(t, "if x looks stale:\n  return 1\nreturn 2", globals(), host)
	if !strings.Contains(e.Msg, "the condition \"x looks stale\" cannot be decided: 'x' is absent") {
		t.Errorf("condition: %v", e)
	}
	for code, want := range map[string]string{
		"if x is present:\n  return x\nreturn \"cold\"": `"cold"`,
		"if x is not present:\n  return y\nreturn x":    `2`,
		"return x is null":          `true`,
		"return x is not null":      `false`,
		"return x.total is present": ``, // a member read: an error
	} {
		if want == "" {
			runErr(t, code, globals(), nil)
			continue
		}
		if got := mustRun(t, code, globals(), nil); got != want {
			t.Errorf("%q = %s, want %s", code, got, want)
		}
	}
}
