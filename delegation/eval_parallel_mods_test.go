package delegation

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// `parallel ("first"):` takes the first branch to succeed and cancels the
// others; the names of the branches that did not win are null.
func TestParallelBlockFirst(t *testing.T) {
	var started, canceled atomic.Int64
	c := newCaller().on("slow", func(ctx context.Context, req *CallRequest) (Value, error) {
		started.Add(1)
		<-ctx.Done() // only the win ends it
		canceled.Add(1)
		return nil, ctx.Err()
	}).on("fast", func(ctx context.Context, req *CallRequest) (Value, error) {
		return "quick", nil
	})
	got := mustRun(t, `
parallel ("first"):
  let a = call slow
  let b = call fast
  let c = call slow
return {a: a, b: b, c: c}
`, map[string]Value{"slow": svc("slow"), "fast": svc("fast")}, &Host{Caller: c, MaxParallel: 3})
	if got != `{"a":null,"b":"quick","c":null}` {
		t.Errorf("got %s", got)
	}
	// A slow branch the win came before never starts; each that started
	// was canceled by it.
	if canceled.Load() != started.Load() {
		t.Errorf("%d slow branches canceled of %d started", canceled.Load(), started.Load())
	}
}

// on-fail "continue" waits for every branch and gives a failed branch's
// name its error; "ignore" gives it null; the default fails the block.
func TestParallelBlockOnFail(t *testing.T) {
	c := newCaller().on("ok", func(ctx context.Context, req *CallRequest) (Value, error) {
		return int64(1), nil
	}).on("bad", func(ctx context.Context, req *CallRequest) (Value, error) {
		return nil, errors.New("source down")
	})
	g := map[string]Value{"ok": svc("ok"), "bad": svc("bad")}
	got := mustRun(t, `
parallel (on-fail: "continue"):
  let a = call ok
  let b = call bad
return {a: a, kind: b.kind, says: b.message}
`, g, &Host{Caller: c})
	if !strings.Contains(got, `"kind":"call"`) || !strings.Contains(got, "source down") || !strings.Contains(got, `"a":1`) {
		t.Errorf("continue: got %s", got)
	}
	got = mustRun(t, `
parallel ("all", on-fail: "ignore"):
  let a = call ok
  let b = call bad
return [a, b]
`, g, &Host{Caller: c})
	if got != `[1,null]` {
		t.Errorf("ignore: got %s", got)
	}
	e := runErr(t, `
parallel (on-fail: "fail-fast"):
  let a = call ok
  let b = call bad
return a
`, g, &Host{Caller: c})
	if e.Kind != KindCall || !strings.Contains(e.Error(), "source down") {
		t.Errorf("fail-fast: %v", e)
	}
}

// `parallel ("any", count: N)` runs every branch to its end and keeps the
// first N that succeeded, in branch order; fewer than N is an error.
func TestParallelBlockAnyCount(t *testing.T) {
	c := newCaller().on("ok", func(ctx context.Context, req *CallRequest) (Value, error) {
		v, _ := req.Args.Get("v")
		return v, nil
	}).on("bad", func(ctx context.Context, req *CallRequest) (Value, error) {
		return nil, errors.New("down")
	})
	g := map[string]Value{"ok": svc("ok"), "bad": svc("bad")}
	got := mustRun(t, `
parallel ("any", count: 2, on-fail: "ignore"):
  let a = call bad
  let b = call ok
    v: "b"
  let c = call ok
    v: "c"
  let d = call ok
    v: "d"
return [a, b, c, d]
`, g, &Host{Caller: c})
	if got != `[null,"b","c",null]` {
		t.Errorf("got %s", got)
	}
	e := runErr(t, `
parallel ("any", count: 2, on-fail: "ignore"):
  let a = call bad
  let b = call ok
    v: "b"
  let c = call bad
return b
`, g, &Host{Caller: c})
	if e.Kind != KindRuntime || !strings.Contains(e.Error(), "1 of the 3 branches succeeded") {
		t.Errorf("too few: %v", e)
	}
	// try catches it.
	got = mustRun(t, `
try:
  parallel ("any", count: 2, on-fail: "continue"):
    let a = call bad
    let b = call bad
  return "unreached"
catch as e:
  return e.message
`, g, &Host{Caller: c})
	if !strings.Contains(got, "0 of the 2 branches succeeded") {
		t.Errorf("caught: %s", got)
	}
}

// upstream's `loop for each X in XS (max: N)` loops over the list, and
// refuses one longer than its bound rather than drop items.
func TestLoopForEachBound(t *testing.T) {
	got := mustRun(t, `
let out = []
loop for each x, i in ["a", "b", "c"] (max: 3):
  append "{x}{i}" to out
return out
`, nil, nil)
	if got != `["a0","b1","c2"]` {
		t.Errorf("got %s", got)
	}
	e := runErr(t, `
let xs = [1, 2, 3]
loop for each x in xs (max: 2):
  return x
`, nil, nil)
	if !strings.Contains(e.Error(), "'xs' has 3 items, more than its (max: 2)") {
		t.Errorf("over the bound: %v", e)
	}
	// as the value of let it collects, as the for loop it is
	got = mustRun(t, `
let out = loop for each x, i in ["a", "b", "c"] (max: 3):
  if i == 1:
    return "skip"
  "{x}{i}"
return out
`, nil, nil)
	if got != `["a0","skip","c2"]` {
		t.Errorf("collected %s", got)
	}
	e = runErr(t, `
let out = loop for each x in [1, 2, 3] (max: 2):
  x
return out
`, nil, nil)
	if !strings.Contains(e.Error(), "has 3 items, more than its (max: 2)") {
		t.Errorf("collecting over the bound: %v", e)
	}
}

// `let {a, b} = X` binds a and b to X's members; a key X lacks, or a
// value that is no object, is an error where a member read gives null.
func TestDestructuringLet(t *testing.T) {
	c := newCaller().on("r", func(ctx context.Context, req *CallRequest) (Value, error) {
		return FromJSON([]byte(`{"findings": ["f"], "sources": 2}`))
	})
	g := map[string]Value{"r": svc("r")}
	got := mustRun(t, `
let {findings, sources} = call r
const {k,} = {k: 1}
return [findings, sources, k]
`, g, &Host{Caller: c})
	if got != `[["f"],2,1]` {
		t.Errorf("got %s", got)
	}
	e := runErr(t, `
let {findings, notes} = call r
return notes
`, g, &Host{Caller: c})
	if !strings.Contains(e.Error(), `the value has no key "notes" (it has the keys findings, sources)`) {
		t.Errorf("missing key: %v", e)
	}
	e = runErr(t, `
let {a} = null
return a
`, nil, nil)
	if !strings.Contains(e.Error(), `the value is null, not an object`) {
		t.Errorf("null: %v", e)
	}
}
