package delegation

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestTryCatchFinally(t *testing.T) {
	got := mustRun(t, `
let log = []
try:
  throw "bad thing"
catch as e:
  append e to log
finally:
  append "finally" to log
try:
  throw { code: 7 }
catch as e2:
  append e2.value.code to log
let r = 0
try:
  let x = [1][5]
catch as e3:
  append e3.kind to log
return log
`, nil, nil)
	want := `[{"message":"bad thing","kind":"throw","slot":null,"attempts":null,"value":"bad thing"},"finally",7,"runtime"]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A bare throw inside catch raises the caught error again, as it was (its
// kind and position kept): an outer try catches it as the inner one did,
// and uncaught it ends the run with the original error.
func TestBareThrowRaisesTheCaughtError(t *testing.T) {
	got := mustRun(t, `
let log = []
try:
  try:
    let x = [1][5]
  catch as e:
    append "inner" to log
    throw
catch as e2:
  append e2.kind to log
return log
`, nil, nil)
	if want := `["inner","runtime"]`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	e := runErr(t, "try:\n  throw \"first\"\ncatch:\n  let y = 1\n  throw\n", nil, nil)
	wantErr(t, e, "test.md:2:3: uncaught throw: first")
}

func TestFinallyRunsOnReturnAndUncaughtError(t *testing.T) {
	c := newCaller().on("log", echo)
	host := &Host{Caller: c, Runtime: newFakeRuntime()}
	g := map[string]Value{"log": svc("log")}
	got := mustRun(t, `
try:
  return "body"
finally:
  call log
`, g, host)
	if got != `"body"` || c.calls.Load() != 1 {
		t.Errorf("got %s, %d finally calls", got, c.calls.Load())
	}
	e := runErr(t, `
try:
  throw "up"
finally:
  call log
`, g, host)
	if e.Kind != KindThrow || c.calls.Load() != 2 {
		t.Errorf("err %v, %d finally calls", e, c.calls.Load())
	}
	wantErr(t, e, "test.md:3:3: uncaught throw: up")
	got = mustRun(t, `
for x in [1, 2]:
  try:
    break
  finally:
    return "finally wins"
`, g, host)
	if got != `"finally wins"` {
		t.Errorf("got %s", got)
	}
	// An error in finally replaces the body's return.
	wantErr(t, runErr(t, "try:\n  return \"body\"\nfinally:\n  throw \"from finally\"\n", nil, nil),
		"test.md:4:3: uncaught throw: from finally")
	// A continue in the body passes through try to its loop; finally runs.
	got = mustRun(t, `
let log = []
for x in [1, 2, 3]:
  try:
    if x == 2:
      continue
    append x to log
  finally:
    append "f" + x to log
return log
`, nil, nil)
	if want := `[1,"f1","f2",3,"f3"]`; got != want {
		t.Errorf("continue through try: got %s, want %s", got, want)
	}
}

func TestStepBudgetIsNotCaught(t *testing.T) {
	host := &Host{Runtime: newFakeRuntime(), MaxSteps: 50}
	e := runErr(t, `
try:
  repeat 40:
    let a = 1
    let b = 2
catch:
  return "caught"
`, nil, host)
	if e.Kind != KindLimit {
		t.Fatalf("kind %q: %v", e.Kind, e)
	}
	wantErr(t, e, "step budget of 50 statements exceeded")
	// The default budget is 100000 statements.
	e = runErr(t, "repeat 60000:\n  let a = 1\n  let b = 2\n", nil, nil)
	wantErr(t, e, "test.md:3:3: step budget of 100000 statements exceeded")
	e = runErr(t, "repeat 200000:\n  let a = 1\n", nil, nil)
	wantErr(t, e, "test.md:1:8: repeat count 200000 exceeds the step budget")
}

func TestMemberIndexLength(t *testing.T) {
	g := map[string]Value{"o": jv(t, `{"a":{"b":[10,20]},"length":"own"}`), "n": nil, "s": svc("svc")}
	got := mustRun(t, `
return [n.x.y, o.missing, o.a.b[1], o.a.b.length, "héllo".length, {k: 1, j: 2}.length,
  o.length, o["a"]["b"][0], n[3], o.a.b.length - 1]
`, g, nil)
	if want := `[null,null,20,2,5,2,"own",10,null,1]`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A member of text, a number, a boolean or a list (but .length) is an
	// error naming the value, never null.
	wantErr(t, runErr(t, "return \"text\".field\n", nil, nil), `test.md:1:15: this value is text ("text"), not an object, so it has no member "field"`)
	wantErr(t, runErr(t, "let r = 3\nreturn r.score\n", nil, nil), `test.md:2:10: r.score: r is integer (3), not an object, so it has no member "score"`)
	wantErr(t, runErr(t, "let r = [1]\nreturn r.first\n", nil, nil), `r is list (1 elements)`)
	wantErr(t, runErr(t, "let xs = [1, 2]\nreturn xs[2]\n", nil, nil), "test.md:2:10: index 2 out of range for 'xs' (length 2)")
	wantErr(t, runErr(t, "let xs = [1, 2]\nreturn xs[-1]\n", nil, nil), "test.md:2:10: index -1 out of range for 'xs' (length 2): indexes run from 0 to xs.length - 1, and a negative one counts nothing from the end (the last element is xs[xs.length - 1])")
	wantErr(t, runErr(t, "let xs = [1, 2]\nreturn xs[-1]\n", nil, nil), "index -1 out of range")
	wantErr(t, runErr(t, "let xs = [1]\nreturn xs[\"a\"]\n", nil, nil), "list index must be an integer, not string")
	got = mustRun(t, "let xs = [1, 2]\nxs[1] = 5\nlet o = {}\no[\"k\"] = xs\nreturn o\n", nil, nil)
	if got != `{"k":[1,5]}` {
		t.Errorf("index assignment: got %s", got)
	}
	wantErr(t, runErr(t, "let xs = []\nxs[0] = 1\n", nil, nil), "test.md:2:3: index 0 out of range")
	wantErr(t, runErr(t, "y = 1\n", nil, nil), "test.md:1:1: assignment to undefined name 'y'")
	wantErr(t, runErr(t, "let o = {}\nreturn o[1]\n", nil, nil), "test.md:2:10: object key must be a string, not integer")
	wantErr(t, runErr(t, "let o = {}\no[true] = 1\n", nil, nil), "test.md:2:3: object key must be a string, not bool")
}

func TestCallingNonService(t *testing.T) {
	e := runErr(t, "let target = \"advancer\"\ncall target\n  x: 1\n", nil, nil)
	wantErr(t, e, "test.md:2:6: cannot call 'target': it is string, not a service")
	if e.Kind != KindRuntime {
		t.Errorf("kind %s", e.Kind)
	}
	wantErr(t, runErr(t, "call nobody\n", nil, nil), "test.md:1:6: undefined name 'nobody'")
}

func TestPlus(t *testing.T) {
	got := mustRun(t, `
return [1 + 2, 1 + 0.5, "a" + "b", "n=" + 3, "x" + null, "o" + {k: [1]}, [1] + [2, 3],
  1s + 500ms, "t" + 2s, 9223372036854775807 + 1, "s:" + s, 5 - 7, 1.5 - 1]
`, map[string]Value{"s": svc("svc")}, nil)
	want := `[3,1.5,"ab","n=3","xnull","o{\"k\":[1]}",[1,2,3],"1.5s","t2s",9.223372036854776e+18,"s:svc",-2,0.5]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	wantErr(t, runErr(t, "return null + 1\n", nil, nil), "test.md:1:13: cannot add null + integer")
	wantErr(t, runErr(t, "return {} + {}\n", nil, nil), "cannot add object + object")
	// A sum beyond the largest number is an error at the operator, never
	// infinity written as null; durations never wrap to the other sign.
	big := map[string]Value{"x": 1e308, "d": time.Duration(math.MaxInt64 - 10)}
	wantErr(t, runErr(t, "return x + x\n", big, nil), "test.md:1:10: the sum is beyond the largest number")
	wantErr(t, runErr(t, "return 0 - x - x\n", big, nil), "test.md:1:14: the difference is beyond the largest number")
	wantErr(t, runErr(t, "let n = 1\nlet t = [x]\nfor v in t:\n  n = v + x\nreturn n\n", big, nil), "test.md:4:9: the sum is beyond")
	wantErr(t, runErr(t, "return d + 1s\n", big, nil), "test.md:1:10: the result is beyond the longest duration")
	wantErr(t, runErr(t, "return -d - 1s\n", big, nil), "test.md:1:11: the result is beyond the longest duration")
	// - subtracts durations; unary - negates numbers and durations.
	got = mustRun(t, "let n = 3\nreturn [2s - 500ms, -n, -1.5, -(1s)]\n", nil, nil)
	if want := `["1.5s",-3,-1.5,"-1s"]`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestComparisonsMeetsIsPresent(t *testing.T) {
	got := mustRun(t, `
let x = null
let y = 0
return [0.9 meets 0.8, 7 meets 8, 3 meets 3, x is null, x is present, y is present, y is not null,
  x is not present, 2 < 2.5, "a" < "b", 2 >= 2, 1 == 1.0, [1, {a: 2}] == [1, {a: 2}], 1 != "one",
  not x, x or "v", 1 and 0]
`, nil, nil)
	want := `[true,false,true,true,false,true,true,true,true,true,true,true,true,true,true,true,false]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	wantErr(t, runErr(t, "let s = null\nreturn s meets 0.5\n", nil, nil), "test.md:2:10: cannot compare null meets number")
	wantErr(t, runErr(t, "return 1 < \"2\"\n", nil, nil), "cannot compare integer < string")
	// A text that spells the number or boolean it is compared with, or
	// added to, stops the run: "1" == 1 would be false, "2" + 1 "21".
	wantErr(t, runErr(t, "let n = \"1\"\nreturn n == 1\n", nil, nil), "test.md:2:10: cannot compare string and integer: the text reads as a number", `"1" is text`)
	wantErr(t, runErr(t, "let n = \" 2 \"\nreturn 1 + n\n", nil, nil), "cannot add integer and string: the text reads as a number")
	wantErr(t, runErr(t, "let f = \"True\"\nreturn f != true\n", nil, nil), "cannot compare string and bool: the text reads as a boolean")
	if got := mustRun(t, "return [\"n: \" + 2, \"yes\" == true, \"1\" == \"1\"]\n", nil, nil); got != `["n: 2",false,true]` {
		t.Errorf("got %s", got)
	}
	// Durations order; empty string, list and object and 0 are false.
	got = mustRun(t, "return [1s < 2s, 500ms >= 1s, not \"\", not [], not {}, not 0, not \"a\", not [0]]\n", nil, nil)
	if want := `[true,false,true,true,true,true,false,false]`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestNaturalConditionJudgment(t *testing.T) {
	var got []*Judgment
	judge := judgeFunc(func(j *Judgment) (Verdict, error) {
		got = append(got, j)
		return Verdict{Holds: true}, nil
	})
	rec := &events{}
	host := &Host{Judge: judge, Runtime: newFakeRuntime(), Recorder: rec}
	prog := parse(t, `
let criteria = null
repeat 2 as k:
  let attempt = { result: "r" + k }
  if criteria says attempt.result is a failure:
    let flagged = true
let decision = { proceed: false }
if decision does not explicitly proceed:
  return "stopped"
`)
	v, err := Run(context.Background(), prog, nil, host)
	if err != nil || v != "stopped" {
		t.Fatalf("got %v, %v", v, err)
	}
	if len(got) != 3 {
		t.Fatalf("%d judgments", len(got))
	}
	ids := []string{got[0].Path.Key(), got[1].Path.Key(), got[2].Path.Key()}
	if ids[0] != "L5/1" || ids[1] != "L5/2" || ids[2] != "L8" {
		t.Errorf("ids %v", ids)
	}
	if s := js(t, got[1].Values); s != `{"criteria":null,"attempt.result":"r2"}` {
		t.Errorf("values %s", s)
	}
	if got[0].FailClosed || !got[2].FailClosed || !got[2].SafeHolds() {
		t.Errorf("fail closed: %v %v", got[0].FailClosed, got[2].FailClosed)
	}
	if p := got[2].Pos; p.Line != 8 || p.Col != 4 {
		t.Errorf("pos %v", p)
	}
	if n := len(rec.kinds("judgment")); n != 3 {
		t.Errorf("%d judgment events", n)
	}
}

func TestFailClosedRule(t *testing.T) {
	cases := []struct {
		code string
		want bool
	}{
		{"if verdict certifies the proposal:\n  append 1 to xs\n", true},
		{"if verdict certifies the proposal:\n  return 1\n", false},
		{"if decision does not explicitly proceed:\n  return 1\n", true},
		{"if decision does not explicitly proceed:\n  let y = 1\n", false},
		{"if criteria says verdict is a failure:\n  append 1 to xs\n", false},
		{"if verdict certifies the proposal:\n  record 1 in xs\n", true},
		{"if decision does not explicitly proceed:\n  throw 1\n", true},
		{"for x in [1]:\n  if decision does not explicitly proceed:\n    break\n", true},
		// Only the block's top level counts.
		{"if verdict certifies the proposal:\n  if true:\n    append 1 to xs\n", false},
		// Loop conditions are never fail-closed.
		{"loop until verdict certifies the proposal (max: 1):\n  append 1 to xs\n", false},
	}
	for _, tc := range cases {
		var fc, asked bool
		host := &Host{Runtime: newFakeRuntime(), Judge: judgeFunc(func(j *Judgment) (Verdict, error) {
			fc, asked = j.FailClosed, true
			return Verdict{}, nil
		})}
		g := map[string]Value{"verdict": nil, "decision": nil, "criteria": nil, "xs": NewList()}
		if _, err := run(t, tc.code, g, host); err != nil {
			t.Fatal(err)
		}
		if fc != tc.want || !asked {
			t.Errorf("%q: FailClosed %v (judge asked: %v), want %v", tc.code, fc, asked, tc.want)
		}
	}
}

func TestNaturalConditionWithoutJudge(t *testing.T) {
	e := runErr(t, "let verdict = 1\nif verdict certifies the proposal:\n  return 1\n", nil, &Host{Runtime: newFakeRuntime()})
	wantErr(t, e, `test.md:2:4: cannot decide the condition "verdict certifies the proposal": no judge is configured`)
	if e.Kind != KindJudge || e.Catchable() {
		t.Errorf("kind %s", e.Kind)
	}
	failing := judgeFunc(func(j *Judgment) (Verdict, error) { return Verdict{}, errors.New("model unreachable") })
	e = runErr(t, "let v = 1\ntry:\n  if v accepts it:\n    return 1\ncatch:\n  return 2\n", nil, &Host{Judge: failing, Runtime: newFakeRuntime()})
	wantErr(t, e, `test.md:3:6: cannot decide the condition "v accepts it": model unreachable`)
	unreadable := judgeFunc(func(j *Judgment) (Verdict, error) { return Verdict{}, catchableErr{} })
	v, err := Run(context.Background(), parse(t, "let v = 1\ntry:\n  if v accepts it:\n    return 1\ncatch as e:\n  return e.kind\n"), nil,
		&Host{Judge: unreadable, Runtime: newFakeRuntime()})
	if err != nil || v != "judge" {
		t.Errorf("an unreadable verdict is caught: %v, %v", v, err)
	}
}

// catchableErr is a judge error that says try may catch it.
type catchableErr struct{}

func (catchableErr) Error() string   { return "the verdict could not be read" }
func (catchableErr) Catchable() bool { return true }

func TestCancellationIsNeverCaught(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	prog := parse(t, "try:\n  call s\n    retries 3\n    on_fail use 1\ncatch:\n  return \"caught\"\nreturn \"after\"\n")
	v, err := Run(ctx, prog, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: newFakeRuntime()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want a cancellation", v, err)
	}
	if n := c.calls.Load(); n != 1 {
		t.Errorf("%d calls after cancellation", n)
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindCanceled || e.Pos.Line != 2 {
		t.Errorf("error %#v", err)
	}
	// A deadline on the whole run is not caught either.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	block := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	v, err = Run(ctx, prog, map[string]Value{"s": svc("s")}, &Host{Caller: block, Runtime: newFakeRuntime()})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &e) || e.Kind != KindCanceled {
		t.Errorf("run deadline: got %v, %v", v, err)
	}
}

func TestNestedRunErrorChain(t *testing.T) {
	inner := &Error{Pos: posAt("inner.prose.md", 10, 5), Msg: "call 'x' failed after 2 attempts: boom", Kind: KindCall,
		Chain: []string{"deeper.prose.md:3:1"}}
	c := newCaller().on("s", func(context.Context, *CallRequest) (Value, error) { return nil, inner })
	e := runErr(t, "\ncall s\n", map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: newFakeRuntime()})
	want := "test.md:2:1: call 's' failed after 1 attempt: call 'x' failed after 2 attempts: boom\n\tat inner.prose.md:10:5\n\tat deeper.prose.md:3:1"
	if e.Error() != want {
		t.Errorf("got  %q\nwant %q", e.Error(), want)
	}
	if !errors.Is(e, inner) {
		t.Error("the nested error is not wrapped")
	}
}

// TestDurationLiterals: duration literals are values that add and encode
// as their text form.
func TestDurationLiterals(t *testing.T) {
	got := mustRun(t, "return [500ms, 2m, 1h + 1s]\n", nil, nil)
	if got != `["500ms","2m0s","1h0m1s"]` {
		t.Errorf("got %s", got)
	}
}

// A text that reads as false is not taken as true where a condition, not,
// and or or reads it: the run stops at the expression, naming the fix.
// Other texts keep their truthiness (semantics 19).
func TestFalseLookingTextInACondition(t *testing.T) {
	for _, src := range []string{
		"let flag = \"false\"\nif flag:\n  return 1\nreturn 0\n",
		"let flag = \"No\"\nif flag:\n  return 1\nreturn 0\n",
		"let flag = \"0\"\nreturn not flag\n",
		"let flag = \" off \"\nreturn 1 and flag\n",
		"let flag = \"false\"\nreturn flag or 1\n",
		"let flag = \"none\"\nloop while flag (max: 2):\n  flag = \"\"\nreturn 0\n",
	} {
		wantErr(t, runErr(t, src, nil, nil), "which would count as true")
	}
	got := mustRun(t, "let a = \"yes\"\nlet b = \"nothing\"\nreturn [not a, not b, a and b, not \"\"]\n", nil, nil)
	if want := `[false,false,true,true]`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Two texts that both read as numbers (or as durations) are not ordered
// by their characters: "10" > "9" would be false. Texts that do not both
// read so still order as text.
func TestOrderingNumericTextsIsAnError(t *testing.T) {
	for _, src := range []string{
		"let a = \"10\"\nlet b = \"9\"\nreturn a > b\n",
		"let a = \"0.5\"\nreturn a <= \"0.25\"\n",
		"let a = \"10s\"\nreturn a < \"9s\"\n",
		"let a = \" 3 \"\nreturn a meets \"20\"\n",
	} {
		wantErr(t, runErr(t, src, nil, nil), "text orders by its characters")
	}
	got := mustRun(t, "return [\"b\" > \"a\", \"2024-01-10\" > \"2024-01-09\", \"10\" > \"9a\", \"10\" == \"9\"]\n", nil, nil)
	if want := `[true,true,false,false]`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
