package delegation

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/proselang/prose/delegation/syntax"
)

func TestScopeLetRebindsAndLoopNamesStayVisible(t *testing.T) {
	got := mustRun(t, `
let x = 1
repeat 3 as i:
  let x = x + i
  let last = i
return { x: x, last: last, i: i }
`, nil, nil)
	if want := `{"x":7,"last":3,"i":3}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestGlobalsAreCopiedNotModified(t *testing.T) {
	g := map[string]Value{"n": int64(1)}
	got := mustRun(t, "let n = n + 1\nreturn n\n", g, nil)
	if got != "2" || g["n"] != int64(1) {
		t.Errorf("got %s, globals %v", got, g)
	}
}

func TestParallelIterationHasOwnScope(t *testing.T) {
	got := mustRun(t, `
let base = 10
let xs = parallel for a in [1, 2, 3]:
  let t = a + base
  t
return xs
`, nil, nil)
	if got != "[11,12,13]" {
		t.Errorf("got %s", got)
	}
	e := runErr(t, `
let xs = parallel for a in [1, 2]:
  let t = a
  t
return t
`, nil, nil)
	wantErr(t, e, "test.md:5:8: undefined name 't'")
}

// A parallel body's let of an outer name binds the iteration's own name,
// which reads the outer one until the let runs; assigning an outer name
// from a parallel body is an error at run time as at check time.
func TestParallelBodyShadowsAndCannotAssignOuter(t *testing.T) {
	got := mustRun(t, `
let n = 10
let xs = parallel for a in [1, 2]:
  let n = n + a
  n
return { xs: xs, n: n }
`, nil, nil)
	if want := `{"xs":[11,12],"n":10}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e := runErr(t, `
let n = 0
parallel repeat 2 as i:
  n = n + i
return n
`, nil, nil)
	wantErr(t, e, "test.md:4:3: a parallel body cannot assign the outer 'n'")
	e = runErr(t, `
let n = 0
parallel:
  n = 1
`, nil, nil)
	wantErr(t, e, "test.md:4:3: a parallel body cannot assign the outer 'n'")
}

func TestRepeatVarIsOneBasedForIndexZeroBased(t *testing.T) {
	got := mustRun(t, `
let seen = []
repeat 3 as i:
  append i to seen
for x, j in ["a", "b"]:
  append x + j to seen
return seen
`, nil, nil)
	if want := `[1,2,3,"a0","b1"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestLoopCountsMustBeNonNegativeIntegers(t *testing.T) {
	for _, tc := range []struct{ count, frag string }{
		{"-1", "test.md:2:8: repeat count must be a non-negative integer, got -1"},
		{`"3"`, `test.md:2:8: repeat count must be a non-negative integer, got string "3"`},
		{"2.5", "repeat count must be a non-negative integer, got 2.5"},
		{"null", "test.md:2:8: repeat count must be a non-negative integer, got null (is the config key or input set?)"},
	} {
		e := runErr(t, "let n = "+tc.count+"\nrepeat n:\n  let x = 1\n", nil, nil)
		wantErr(t, e, tc.frag)
	}
	// text that spells the count says where it came from: an input
	// given with --input is text unless it declares a type
	e := runErr(t, "repeat rounds:\n  let x = 1\n", map[string]Value{"rounds": "3"}, nil)
	wantErr(t, e, `test.md:1:8: repeat count must be a non-negative integer, got string "3" ("3" is text: a value given with --input is text unless its parameter declares a type`)
	wantErr(t, runErr(t, "repeat \"3\":\n  let x = 1\n", nil, nil), `("3" is text, written in quotes: write 3 without them)`)
	if got := mustRun(t, "let c = 0\nrepeat 3.0:\n  c = c + 1\nrepeat 0:\n  c = 100\nreturn c\n", nil, nil); got != "3" {
		t.Errorf("integral float count: got %s", got)
	}
	e = runErr(t, "loop while true (max: -2):\n  let x = 1\n", nil, nil)
	wantErr(t, e, "test.md:1:23: loop max must be a non-negative integer, got -2")
	// a loop of max 0 would never run: an error, not a loop that ends
	e = runErr(t, "loop until done (max: m):\n  let x = 1\n", map[string]Value{"m": int64(0), "done": true}, nil)
	wantErr(t, e, "test.md:1:23: loop max must be at least 1, got 0: the loop would never run")
	// retries is a loop count too, and is refused above the step budget.
	g := map[string]Value{"s": svc("s")}
	wantErr(t, runErr(t, "call s\n  retries -1\n", g, nil), "test.md:2:11: retries must be a non-negative integer, got -1")
	e = runErr(t, "call s\n  retries 500\n", g, &Host{Caller: newCaller(), Runtime: newFakeRuntime(), MaxSteps: 100})
	wantErr(t, e, "retries 500 exceeds the step budget of 100 statements")
}

func TestLoopWhileUntil(t *testing.T) {
	got := mustRun(t, `
let n = 0
let runs = 0
loop while n < 3 (max: 10) as k:
  n = n + 1
  runs = k
let m = 0
loop until m >= 2 (max: 10):
  m = m + 1
let z = 0
loop until true (max: 5):
  z = z + 1
let capped = 0
loop while true (max: 4):
  capped = capped + 1
return [n, runs, m, z, capped]
`, nil, nil)
	// until is tested after each iteration, so its body runs at least once.
	if want := "[3,3,2,1,4]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestLoopWithoutMaxIsRefused(t *testing.T) {
	prog := parse(t, "loop while true (max: 1):\n  let x = 1\n")
	prog.Body[0].(*syntax.WhileStmt).Max = nil
	_, err := Run(context.Background(), prog, nil, nil)
	wantErr(t, err, "test.md:1:1: loop without (max: N) refused")
}

func TestCollectingLoops(t *testing.T) {
	got := mustRun(t, `
let a = for x in [1, 2, 3]:
  if x == 2:
    return "two"
  x + 100
let b = repeat 3 as i:
  let y = i
let c = for x in [1, 2, 3, 4]:
  if x == 2:
    continue
  if x == 4:
    break
  x
let d = for x in [1, 2]:
  call s
    x: x
  let ignored = 0
return { a: a, b: b, c: c, d: d }
`, map[string]Value{"s": svc("s")}, &Host{Caller: newCaller().on("s", echo), Runtime: newFakeRuntime()})
	want := `{"a":[101,"two",103],"b":[null,null,null],"c":[1,null,3],"d":[{"x":1},{"x":2}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The last bare statement is looked for in the branch an if took and
	// in try/catch.
	got = mustRun(t, `
let e = for x in [1, 2, 3]:
  if x == 1:
    "one"
  elif x == 2:
    "two"
  else:
    "other"
let f = for x in [1, 2]:
  try:
    if x == 2:
      throw "bad"
    "tried"
  catch:
    "caught"
return { e: e, f: f }
`, nil, nil)
	if want := `{"e":["one","two","other"],"f":["tried","caught"]}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCollectingNestedLoopInTailPosition(t *testing.T) {
	// The shape of blind-review: the inner repeat is the last statement of
	// the outer body, so it collects and its return ends only its own
	// iteration.
	got := mustRun(t, `
let out = parallel for tier in tiers:
  repeat tier.count as k:
    let staged = []
    for m in ["m1", "m2"]:
      record m + k in staged
    return { tier: tier.model, reports: staged }
return out
`, map[string]Value{"tiers": jv(t, `[{"model":"a","count":2},{"model":"b","count":1}]`)}, nil)
	want := `[[{"tier":"a","reports":["m11","m21"]},{"tier":"a","reports":["m12","m22"]}],[{"tier":"b","reports":["m11","m21"]}]]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Also as the last statement of the if branch taken.
	got = mustRun(t, `
let v = for a in [1, 2]:
  if a == 1:
    repeat 2 as k:
      return [a, k]
  else:
    "plain"
return v
`, nil, nil)
	if want := `[[[1,1],[1,2]],"plain"]`; got != want {
		t.Errorf("tail loop in an if branch: got %s, want %s", got, want)
	}
}

func TestReturnOutsideCollectingLoopEndsRun(t *testing.T) {
	got := mustRun(t, `
for x in [1, 2, 3]:
  if x == 2:
    return x
return "not reached"
`, nil, nil)
	if got != "2" {
		t.Errorf("got %s", got)
	}
	if got := mustRun(t, "let x = 1\n", nil, nil); got != "null" {
		t.Errorf("program without return: got %s", got)
	}
	// A return inside a statement loop nested in a collecting body ends
	// the collecting iteration.
	got = mustRun(t, `
let v = for a in [1, 2]:
  for b in [10, 20]:
    if b == 20:
      return a + b
  "unreached"
return v
`, nil, nil)
	if got != "[21,22]" {
		t.Errorf("nested return: got %s", got)
	}
}

func TestParallelStatementLoopReturnEndsRun(t *testing.T) {
	got := mustRun(t, `
parallel for x in [1, 2, 3]:
  if x == 2:
    return "from two"
return "after"
`, nil, nil)
	if got != `"from two"` {
		t.Errorf("got %s", got)
	}
	// A return in a parallel: branch cancels the sibling blocked in its call.
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	got = mustRun(t, `
parallel:
  return "from branch"
  let x = call s
return "after"
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	if got != `"from branch"` {
		t.Errorf("parallel: branch return: got %s", got)
	}
}

func TestParallelBranchesJoinAndBind(t *testing.T) {
	c := newCaller().on("s", echo)
	got := mustRun(t, `
parallel:
  let a = call s
    v: 1
  let b = repeat 2 as i:
    call s
      v: i
return { a: a, b: b }
`, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: newFakeRuntime()})
	if want := `{"a":{"v":1},"b":[{"v":1},{"v":2}]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Names bound by several branches: the later branch wins.
	for range 5 {
		if got := mustRun(t, "parallel:\n  let a = 1\n  let a = 2\n  let a = 3\nreturn a\n", nil, &Host{}); got != "3" {
			t.Fatalf("a clash bound %s, want the last branch's 3", got)
		}
	}
}

func TestAppendRecordInPlace(t *testing.T) {
	l := NewList(int64(1))
	got := mustRun(t, `
let alias = xs
append 2 to xs
record { k: 3 } in alias
let o = { inner: [] }
append "z" to o.inner
return { xs: xs, o: o }
`, map[string]Value{"xs": l}, nil)
	if want := `{"xs":[1,2,{"k":3}],"o":{"inner":["z"]}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e := runErr(t, "let n = null\nappend 1 to n\n", nil, nil)
	wantErr(t, e, "test.md:2:13: cannot append to 'n': it is null, not a list")
	if e.Kind != KindRuntime {
		t.Errorf("kind %s", e.Kind)
	}
}

func TestContinueBreakInnermost(t *testing.T) {
	got := mustRun(t, `
let out = []
for a in [1, 2, 3]:
  if a == 2:
    continue
  for b in [1, 2, 3]:
    if b == 2:
      break
    append a + b + 0 to out
  append "end" + a to out
return out
`, nil, nil)
	if want := `[2,"end1",4,"end3"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	wantErr(t, runErr(t, "continue\n", nil, nil), "test.md:1:1: continue outside a loop")
	wantErr(t, runErr(t, "parallel for x in [1]:\n  break\n", nil, nil), "test.md:2:3: break cannot leave a parallel loop")
}

func TestForIteratesTheElementsPresentAtStart(t *testing.T) {
	got := mustRun(t, `
let xs = [1, 2]
let n = 0
for x in xs:
  append x to xs
  n = n + 1
return [n, xs]
`, nil, nil)
	if got != "[2,[1,2,1,2]]" {
		t.Errorf("got %s", got)
	}
	wantErr(t, runErr(t, "let xs = null\nfor x in xs:\n  let y = x\n", nil, nil), "test.md:2:10: cannot loop over 'xs': it is null, not a list")
}

func TestBranchCannotLeaveParallelBlock(t *testing.T) {
	e := runErr(t, `
repeat 2:
  parallel:
    let a = 1
    continue
`, nil, nil)
	wantErr(t, e, "test.md:5:5: continue outside a loop")
}

func TestGlobalsAreNormalizedAndIsolated(t *testing.T) {
	xs := NewList(int64(1))
	g := map[string]Value{"n": 3, "m": map[string]any{"b": 1, "a": []any{"x"}}, "xs": xs}
	got := mustRun(t, "let c = 0\nrepeat n:\n  c = c + 1\nappend c to xs\nreturn [c, m, xs]\n", g, nil)
	if got != `[3,{"a":["x"],"b":1},[1,3]]` || xs.Len() != 1 {
		t.Errorf("got %s; caller's list now %s", got, js(t, xs))
	}
}

// A (max: N) above the step budget is a ceiling, not a count: the loop runs
// until its condition ends it, and the budget stops it only if it does not.
func TestLoopMaxIsOnlyACeiling(t *testing.T) {
	host := &Host{Caller: newCaller(), Judge: fakeJudge(), Runtime: newFakeRuntime(), MaxSteps: 100}
	v, err := run(t, "let n = 0\nloop until n == 3 (max: 1000000):\n  n = n + 1\nreturn n\n", nil, host)
	if err != nil || v != int64(3) {
		t.Fatalf("got %v, %v", v, err)
	}
	host = &Host{Caller: newCaller(), Judge: fakeJudge(), Runtime: newFakeRuntime(), MaxSteps: 100}
	_, err = run(t, "let n = 0\nloop while true (max: 1000000):\n  n = n + 1\n", nil, host)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindLimit {
		t.Fatalf("runaway loop: %v", err)
	}
	e = runErr(t, "repeat 1000000:\n  let x = 1\n", nil, &Host{Caller: newCaller(), Judge: fakeJudge(), Runtime: newFakeRuntime(), MaxSteps: 100})
	wantErr(t, e, "repeat count 1000000 exceeds the step budget of 100 statements")
}

// A duration that went through JSON is its text form; timeouts accept it.
func TestTimeoutFromDurationText(t *testing.T) {
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		if req.Timeout != 1500*time.Millisecond {
			return nil, fmt.Errorf("timeout %v", req.Timeout)
		}
		return "ok", nil
	})
	v, err := run(t, "return call s\n  timeout t\n", map[string]Value{"s": svc("s"), "t": "1.5s"},
		&Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime()})
	if err != nil || v != "ok" {
		t.Fatalf("got %v, %v", v, err)
	}
	e := runErr(t, "return call s\n  timeout t\n", map[string]Value{"s": svc("s"), "t": "soon"}, nil)
	wantErr(t, e, "timeout must be a duration")
}
