package delegation

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// A chain as upstream writes it, each stage indented under the let; the
// same on one line and at the let's indentation.
func TestPipeChain(t *testing.T) {
	got := mustRun(t, `
let s = [1, 2, 3, 4]
  | filter:
      item > 1
  | map:
      item + 10
  | reduce(total, n):
      total + n
return s
`, nil, nil)
	if got != "39" {
		t.Errorf("indented chain: got %s, want 39", got)
	}
	got = mustRun(t, `
let s = ["a", "b"] | map:
  item + "!"
| map:
  item + "?"
return s
`, nil, nil)
	if want := `["a!?","b!?"]`; got != want {
		t.Errorf("chain at the let's level: got %s, want %s", got, want)
	}
}

// Rule 9 gives an item's value: a return ends only that item, else the
// last bare statement, else null; the item and the body's names are the
// body's alone.
func TestPipeBodyValue(t *testing.T) {
	got := mustRun(t, `
let item = "outer"
let ys = [1, 2, 3] | map:
  let half = item - 1
  if item == 2:
    return "two"
  if item == 3:
    let nothing = 0
  else:
    half
return { ys: ys, item: item }
`, nil, nil)
	if want := `{"ys":[0,"two",null],"item":"outer"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e := runErr(t, `
let ys = [1] | map:
  let inner = item
  inner
return inner
`, nil, nil)
	wantErr(t, e, "test.md:5:8: undefined name 'inner'")
	e = runErr(t, `
let ys = [1] | map:
  item
return item
`, nil, nil)
	wantErr(t, e, "test.md:4:8: undefined name 'item'")
}

// pmap runs the items at once and keeps their order: here item 1's call
// answers only after item 2's did.
func TestPipePmapKeepsInputOrder(t *testing.T) {
	second := make(chan struct{})
	var mu sync.Mutex
	var order []int64
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		v, _ := req.Args.Get("v")
		if v == int64(1) {
			select {
			case <-second:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		mu.Lock()
		order = append(order, v.(int64))
		mu.Unlock()
		if v == int64(2) {
			close(second)
		}
		return v.(int64) * 10, nil
	})
	got := mustRun(t, `
let out = [1, 2]
  | pmap:
      call s
        v: item
return out
`, map[string]Value{"s": svc("s")}, &Host{Caller: c, MaxParallel: 2})
	if got != "[10,20]" {
		t.Errorf("got %s, want [10,20]", got)
	}
	if !slices.Equal(order, []int64{2, 1}) {
		t.Errorf("answered in the order %v, want [2 1]", order)
	}
}

// pmap runs at most Host.MaxParallel items at once, as parallel for
// does: the first calls wait for each other until the bound is reached.
func TestPipePmapIsBounded(t *testing.T) {
	var cur, peak atomic.Int64
	bar := newBarrier(3)
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if err := bar.wait(ctx); err != nil {
			return nil, err
		}
		v, _ := req.Args.Get("v")
		return v, nil
	})
	got := mustRun(t, "let ys = [1, 2, 3, 4, 5, 6, 7, 8, 9] | pmap:\n  call s\n    v: item\nreturn ys\n", map[string]Value{"s": svc("s")}, &Host{Caller: c, MaxParallel: 3})
	if got != "[1,2,3,4,5,6,7,8,9]" {
		t.Errorf("got %s", got)
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency %d, want 3", p)
	}
}

// A filter keeps on true and drops on false; any other value is an error
// naming the item and what the body gave, never a guess.
func TestPipeFilterWantsABoolean(t *testing.T) {
	got := mustRun(t, `
let ys = [1, 5, 2, 7] | filter:
  item > 3
return ys
`, nil, nil)
	if got != "[5,7]" {
		t.Errorf("got %s, want [5,7]", got)
	}
	for _, tc := range []struct{ body, want string }{
		{`"false"`, `test.md:2:19: | filter: the body gave the text "false" for item 1 of 2, not the boolean false`},
		{`"relevant"`, `test.md:2:19: | filter: the body gave the text "relevant" for item 1 of 2, not true or false`},
		{`null`, `test.md:2:19: | filter: the body gave null (or no value) for item 1 of 2, not true or false`},
		{`{ keep: true }`, `test.md:2:19: | filter: the body gave an object (keys keep) for item 1 of 2`},
		{"if item == 2:\n    true", `test.md:2:19: | filter: the body gave null (or no value) for item 1 of 2`},
		{"item", `test.md:2:19: | filter: the body gave integer 1 for item 1 of 2`},
	} {
		e := runErr(t, "\nlet ys = [1, 2] | filter:\n  "+tc.body+"\nreturn ys\n", nil, nil)
		wantErr(t, e, tc.want)
	}
}

// A sequential filter stops at the first item whose body gives no
// boolean: the later items' bodies (their calls) do not run.
func TestPipeFilterStopsAtTheFirstNonBoolean(t *testing.T) {
	got := mustRun(t, `
let seen = []
try:
  let ys = [1, 2, 3] | filter:
    append item to seen
    "relevant"
catch:
  return seen
return null
`, nil, nil)
	if got != "[1]" {
		t.Errorf("the bodies ran for items %s, want [1]", got)
	}
}

// reduce starts from the first item and folds the rest; an empty list
// and a step that gives no value are errors, a return of null is not.
func TestPipeReduce(t *testing.T) {
	for _, tc := range []struct{ list, want string }{
		{`["a", "b", "c"]`, `"abc"`},
		{`[{ n: 1 }]`, `{"n":1}`},
	} {
		got := mustRun(t, "\nlet r = "+tc.list+" | reduce(acc, x):\n  acc + x\nreturn r\n", nil, nil)
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.list, got, tc.want)
		}
	}
	got := mustRun(t, `
let r = [1, 2, 3] | reduce(acc, x):
  if x == 3:
    return null
  acc + x
return r
`, nil, nil)
	if got != "null" {
		t.Errorf("a return of null: got %s", got)
	}
	e := runErr(t, "\nlet r = [] | reduce(acc, x):\n  acc + x\nreturn r\n", nil, nil)
	wantErr(t, e, "test.md:2:14: | reduce(acc, x): the list is empty, so there is no first item to start from")
	// the fix names the list the pipeline reads
	e = runErr(t, "\nlet scores = []\nlet r = scores | reduce(acc, x):\n  acc + x\nreturn r\n", nil, nil)
	wantErr(t, e, "(if scores.length > 0:), or add the starting value in front of the list ([start] + scores)")
	e = runErr(t, "\nlet r = [1, 2, 3] | reduce(acc, x):\n  if x == 3:\n    return acc\nreturn r\n", nil, nil)
	wantErr(t, e, "test.md:2:21: | reduce(acc, x): the body gave no value for item 2 of 3")
}

// A stage over something that is not a list stops at the stage, naming
// what it got, also when the stage before gave it.
func TestPipeInputMustBeAList(t *testing.T) {
	e := runErr(t, "\nlet ys = s | map:\n  item\n", map[string]Value{"s": "a, b"}, nil)
	wantErr(t, e, `test.md:2:14: | map: its input is the text "a, b", not a list`)
	e = runErr(t, "\nlet ys = [1, 2] | reduce(a, b):\n  a + b\n| filter:\n  true\n", nil, nil)
	wantErr(t, e, `test.md:4:3: | filter: its input is integer 3, not a list`)
	e = runErr(t, "\nlet ys = null | pmap:\n  item\n", nil, nil)
	wantErr(t, e, `test.md:2:17: | pmap: its input is null, not a list`)
}

// The calls of a stage's body have a path per item, as a for loop's
// iterations give theirs, and per stage (their lines); map and pmap give
// the same paths, so an answer journaled under one is found under the
// other.
func TestPipeCallPaths(t *testing.T) {
	for _, op := range []string{"map", "pmap"} {
		c := newCaller().on("s", echo).on("k", func(_ context.Context, req *CallRequest) (Value, error) {
			v, _ := req.Args.Get("v")
			return v != int64(2), nil
		})
		got := mustRun(t, `
let out = [1, 2, 3]
  | filter:
      call k
        v: item
  | `+op+`:
      call s
        v: item
return out
`, map[string]Value{"s": svc("s"), "k": svc("k")}, &Host{Caller: c})
		if want := `[{"v":1},{"v":3}]`; got != want {
			t.Errorf("%s: got %s, want %s", op, got, want)
		}
		ids := c.ids()
		slices.Sort(ids)
		want := []string{"L4/1#1", "L4/2#1", "L4/3#1", "L7/1#1", "L7/2#1"}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: call ids %v, want %v", op, ids, want)
		}
	}
}

// A stage's body, sequential or not, cannot assign an outer name (the
// checker says so before the run); it appends to an outer list in place.
func TestPipeBodyCannotAssignOuter(t *testing.T) {
	e := runErr(t, "\nlet n = 0\nlet ys = [1, 2] | map:\n  n = n + item\n  n\nreturn n\n", nil, nil)
	wantErr(t, e, "test.md:4:3: a pipeline stage's body cannot assign the outer 'n'")
	got := mustRun(t, "\nlet seen = []\nlet ys = [1, 2] | map:\n  append item to seen\n  item\nreturn seen\n", nil, nil)
	if got != "[1,2]" {
		t.Errorf("appends: got %s", got)
	}
}

// continue and break cannot leave a stage's body at run time either.
func TestPipeBodyIsNoLoop(t *testing.T) {
	e := runErr(t, "\nfor x in [1]:\n  let ys = [1] | map:\n    continue\n", nil, nil)
	wantErr(t, e, "test.md:4:5: continue cannot leave a pipeline stage's body")
}

// A pipeline over known values is run by Refusal like any statement that
// reads only them: reduce's accumulator is the stage's own name.
func TestRefusalRunsAPipeline(t *testing.T) {
	prog := parse(t, "let total = limits | reduce(sum, n):\n  sum + n\nif total > 10:\n  throw usage \"the limits add up to {total}\"\nreturn total")
	if e, _ := Refusal(prog, map[string]Value{"limits": NewList(int64(5), int64(6))}); e == nil || e.Msg != "the limits add up to 11" {
		t.Errorf("refusal: %v", e)
	}
	if got := ReadNames(prog.Body[0]); !slices.Equal(got, []string{"limits"}) {
		t.Errorf("ReadNames: %v, want [limits]", got)
	}
}

// A stage's body may hold a do: block, and a named block may hold a
// pipeline: each keeps its own scope.
func TestPipeAndBlocks(t *testing.T) {
	got := mustRun(t, `
block double(xs):
  return xs | map:
    item + item
let ys = [1, 2] | map:
  do:
    let t = item + 1
    t
let d = do double(ys)
return { ys: ys, d: d }
`, nil, nil)
	if want := `{"ys":[2,3],"d":[4,6]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
