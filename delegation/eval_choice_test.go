package delegation

import (
	"context"
	"errors"
	"testing"
)

// choiceCode runs one option's call by the criteria, which mention plan.
const choiceCode = `let plan = mode
let done = []
choice best recovery path for plan:
  option "retry":
    append "retry" to done
    call retryer
  option "fallback":
    append "fallback" to done
  option "abort":
    append "abort" to done
    throw "no safe recovery path"
return done
`

func TestChoiceRunsThePickedOptionOnly(t *testing.T) {
	var asked []*Judgment
	judge := judgeFunc(func(j *Judgment) (Verdict, error) {
		asked = append(asked, j)
		return Verdict{Pick: "fallback", Reasoning: "retrying failed twice"}, nil
	})
	c := newCaller().on("retryer", echo)
	rec := &events{}
	v, err := run(t, choiceCode, map[string]Value{"mode": "degraded", "retryer": svc("retryer")},
		&Host{Caller: c, Judge: judge, Runtime: newFakeRuntime(), Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if got := js(t, v); got != `["fallback"]` {
		t.Errorf("ran %s, want only the fallback option", got)
	}
	if n := c.calls.Load(); n != 0 {
		t.Errorf("%d calls: the retry option ran", n)
	}
	if len(asked) != 1 {
		t.Fatalf("%d judgments", len(asked))
	}
	j := asked[0]
	if !j.IsChoice() || j.Cond.Text != "best recovery path for plan" || j.FailClosed {
		t.Errorf("judgment %+v", j)
	}
	if got := js(t, NewList(toValues(j.Options)...)); got != `["retry","fallback","abort"]` {
		t.Errorf("options %s", got)
	}
	if got := js(t, j.Values); got != `{"plan":"degraded"}` {
		t.Errorf("values %s", got)
	}
	if j.Path.Key() != "L3" || j.Pos.Line != 3 || j.Pos.Col != 8 {
		t.Errorf("path %s, pos %v", j.Path.Key(), j.Pos)
	}
	evs := rec.kinds(EventJudgment)
	if len(evs) != 1 || evs[0].Verdict.Pick != "fallback" || evs[0].Condition != "best recovery path for plan" {
		t.Errorf("judgment events %+v", evs)
	}
}

func toValues(ss []string) []Value {
	out := make([]Value, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func TestChoicePickEachOption(t *testing.T) {
	for pick, want := range map[string]string{"retry": `["retry"]`, "fallback": `["fallback"]`} {
		c := newCaller().on("retryer", echo)
		v, err := run(t, choiceCode, map[string]Value{"mode": pick, "retryer": svc("retryer")},
			&Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime()})
		if err != nil {
			t.Fatal(err)
		}
		if got := js(t, v); got != want {
			t.Errorf("pick %s: ran %s", pick, got)
		}
	}
	e := runErr(t, choiceCode, map[string]Value{"mode": "abort", "retryer": svc("retryer")}, nil)
	wantErr(t, e, `test.md:11:5: uncaught throw: no safe recovery path`)
}

func TestChoicePickNotALabelIsAnError(t *testing.T) {
	for _, pick := range []string{"", "Retry", "retry, fallback"} {
		judge := judgeFunc(func(j *Judgment) (Verdict, error) { return Verdict{Pick: pick}, nil })
		e := runErr(t, choiceCode, map[string]Value{"mode": "x", "retryer": svc("retryer")}, &Host{Judge: judge, Runtime: newFakeRuntime()})
		wantErr(t, e, `test.md:3:8: cannot pick an option of the choice "best recovery path for plan": the judge picked`)
		if e.Kind != KindJudge || e.Catchable() {
			t.Errorf("pick %q: kind %s, catchable %v", pick, e.Kind, e.Catchable())
		}
	}
}

func TestChoiceWithoutJudge(t *testing.T) {
	e := runErr(t, choiceCode, map[string]Value{"mode": "x"}, &Host{Runtime: newFakeRuntime()})
	wantErr(t, e, `test.md:3:8: cannot pick an option of the choice "best recovery path for plan": no judge is configured`)
	if e.Kind != KindJudge || e.Catchable() {
		t.Errorf("kind %s", e.Kind)
	}
	failing := judgeFunc(func(j *Judgment) (Verdict, error) { return Verdict{}, errors.New("model unreachable") })
	e = runErr(t, choiceCode, map[string]Value{"mode": "x"}, &Host{Judge: failing, Runtime: newFakeRuntime()})
	wantErr(t, e, `test.md:3:8: cannot pick an option of the choice "best recovery path for plan": model unreachable`)
	unreadable := judgeFunc(func(j *Judgment) (Verdict, error) { return Verdict{}, catchableErr{} })
	v, err := Run(context.Background(), parse(t, "let p = 1\ntry:\n  choice best for p:\n    option \"a\":\n      return 1\ncatch as e:\n  return e.kind\n"), nil,
		&Host{Judge: unreadable, Runtime: newFakeRuntime()})
	if err != nil || v != "judge" {
		t.Errorf("an unreadable pick is caught as an unreadable verdict is: %v, %v", v, err)
	}
}

// A choice in a loop is judged once per iteration, with the iteration's
// path, and in a collecting loop its option's value is the iteration's.
func TestChoiceInACollectingLoop(t *testing.T) {
	var paths []string
	judge := judgeFunc(func(j *Judgment) (Verdict, error) {
		paths = append(paths, j.Path.Key())
		return fakePick(j)
	})
	got := mustRun(t, `let ys = for x in ["a", "b", "a"]:
  choice the letter x names:
    option "a":
      "first"
    option "b":
      "second"
return ys
`, nil, &Host{Judge: judge, Runtime: newFakeRuntime()})
	if got != `["first","second","first"]` {
		t.Errorf("got %s", got)
	}
	if len(paths) != 3 || paths[0] != "L2/1" || paths[2] != "L2/3" {
		t.Errorf("paths %v", paths)
	}
}

// An empty option runs nothing.
func TestChoiceEmptyOption(t *testing.T) {
	got := mustRun(t, "let p = \"skip\"\nlet n = 0\nchoice what p says:\n  option \"skip\":\n  option \"count\":\n    n = n + 1\nreturn n\n", nil, nil)
	if got != `0` {
		t.Errorf("got %s", got)
	}
}
