package delegation

import (
	"context"
	"fmt"
	"testing"
)

// A session runs as a call of its hidden name, through the run's Caller:
// its path is its line (and loop iterations), its arguments the
// interpolated prompt and the context object, its retry the call's.
func TestSessionIsACall(t *testing.T) {
	rec := &events{}
	var n int
	c := newCaller().on("session: critic", func(_ context.Context, req *CallRequest) (Value, error) {
		n++
		if n == 1 {
			return nil, fmt.Errorf("empty reply")
		}
		return "verdict for " + js(t, req.Args), nil
	})
	globals := map[string]Value{"topic": "tides", "session: critic": svc("session: critic")}
	v := mustRun(t, `
agent critic:
  prompt: "Be strict."
for d in ["a"]:
  let r = session: critic
    prompt: "Review {d} on {topic}"
    context: [topic, d]
    retry: 1
return r
`, globals, &Host{Caller: c, Runtime: newFakeRuntime(), Recorder: rec})
	want := `"verdict for {\"prompt\":\"Review a on tides\",\"context\":{\"topic\":\"tides\",\"d\":\"a\"}}"`
	if v != want {
		t.Errorf("value %v, want %s", v, want)
	}
	if ids := c.ids(); len(ids) != 2 || ids[0] != "L5/1#1" || ids[1] != "L5/1#2" {
		t.Errorf("ids %v", ids)
	}
	if s := rec.kinds("call.start"); len(s) != 2 || s[0].Slot != "session: critic" || s[0].Pos.Line != 5 || s[0].Pos.Col != 11 {
		t.Errorf("start events %+v", s)
	}
}

// A session whose model service was never bound fails at the session,
// naming it, as a call of an unbound name would.
func TestSessionWithoutItsService(t *testing.T) {
	err := runErr(t, "let r = session \"Hello\"\nreturn r\n", nil, &Host{Caller: newCaller(), Runtime: newFakeRuntime()})
	wantErr(t, err, `test.md:1:9: session "Hello" has no model to answer it: a session runs in the Execution of a function or a responsibility, whose run binds its model before it starts`)
}
