package delegation

import (
	"reflect"
	"testing"
)

// A do: block's value is its return's (which ends only the block), else
// its last bare statement's (a loop in last place collecting), else null;
// its names are its own, and it assigns the names around it.
func TestDoBlockValueAndScope(t *testing.T) {
	got := mustRun(t, `
let n = 1
let a = do:
  let t = n + 1
  n = 10
  return t
  n = 99
let b = do:
  let u = 5
  u + n
let c = do:
  let v = 1
let d = do:
  for x in [1, 2]:
    x + 1
do:
  n = n + 1
return { a: a, b: b, c: c, d: d, n: n }
`, nil, nil)
	if want := `{"a":2,"b":15,"c":null,"d":[2,3],"n":11}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e := runErr(t, `
let a = do:
  let t = 1
  t
return t
`, nil, nil)
	wantErr(t, e, "test.md:5:8: undefined name 't'")
	// a let of an outer name makes the block's own, reading the outer
	// one until it runs
	got = mustRun(t, `
let n = 1
let a = do:
  let n = n + 1
  n
return [a, n]
`, nil, nil)
	if got != "[2,1]" {
		t.Errorf("shadowing: got %s", got)
	}
	// a return in a do: in a collecting loop ends the block, not the
	// iteration; continue and break cannot leave the block
	got = mustRun(t, `
let xs = for x in [1, 2, 3]:
  let y = do:
    if x == 2:
      return 20
    x
  y + 1
return xs
`, nil, nil)
	if got != "[2,21,4]" {
		t.Errorf("collecting: got %s", got)
	}
	e = runErr(t, `
for x in [1, 2]:
  do:
    continue
`, nil, nil)
	wantErr(t, e, "test.md:4:5: continue cannot leave a do: block")
}

// A named block runs with its parameters in a scope of its own, reads
// the top-level names, returns to its do, and may be invoked before its
// definition.
func TestNamedBlockReturnsToCaller(t *testing.T) {
	got := mustRun(t, `
let base = 100
let a = do add(1, 2)
let b = do add(a, 10)
let c = do nothing()
block add(x, y):
  let s = x + y
  if s > 10:
    return s + base
  s
block nothing():
  let z = 1
return { a: a, b: b, c: c }
`, nil, nil)
	if want := `{"a":3,"b":113,"c":null}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e := runErr(t, `
let a = do f(1)
return s
block f(x):
  let s = x
  s
`, nil, nil)
	wantErr(t, e, "test.md:3:8: undefined name 's'")
}

// A block's parameters are not assigned, nor the top-level names from a
// block (it returns its value instead).
func TestBlockParamsAndTopLevelAreNotAssigned(t *testing.T) {
	e := runErr(t, `
do f(1)
block f(x):
  x = 2
`, nil, nil)
	wantErr(t, e, "test.md:4:3: 'x' is a parameter of the block")
	e = runErr(t, `
do f(1)
block f(x):
  do:
    x = 2
`, nil, nil)
	wantErr(t, e, "test.md:5:5: 'x' is a parameter of the block")
	e = runErr(t, `
let n = 1
do f(1)
block f(x):
  n = x
`, nil, nil)
	wantErr(t, e, "test.md:5:3: a block cannot assign the top-level 'n'")
}

// Recursion is bounded: past MaxBlockDepth invocations inside one
// another, an error names the block, which no try catches.
func TestBlockRecursionIsBounded(t *testing.T) {
	got := mustRun(t, `
block sum(n):
  if n <= 1:
    return 1
  let r = do sum(n - 1)
  return n + r
return do sum(60)
`, nil, nil)
	if got != "1830" {
		t.Errorf("sum: got %s", got)
	}
	e := runErr(t, `
block loop(n):
  do loop(n + 1)
try:
  do loop(0)
catch:
  return "caught"
`, nil, nil)
	wantErr(t, e, "test.md:3:3: block loop: more than 64 block invocations")
	if e.Kind != KindLimit || e.Limit != LimitBlockDepth {
		t.Errorf("kind %s limit %s", e.Kind, e.Limit)
	}
}

// Each invocation of a block gives its calls paths of their own: the
// do's path, then the call's line, so two invocations calling the same
// callee never share a path.
func TestBlockCallPathsAreDistinct(t *testing.T) {
	c := newCaller().on("s", echo)
	mustRun(t, `
block ask(q):
  call s
    q: q
do ask(1)
for x in [1, 2]:
  do ask(x)
do:
  call s
    q: 0
block twice(q):
  do ask(q)
  do ask(q)
do twice(3)
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	want := []string{"L5:L3#1", "L7/1:L3#1", "L7/2:L3#1", "L9#1", "L14:L12:L3#1", "L14:L13:L3#1"}
	if ids := c.ids(); !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	for _, id := range want {
		p := MustParsePath(id[:len(id)-2])
		if p.Line() != 3 && p.Line() != 9 {
			t.Errorf("%s: line %d", id, p.Line())
		}
	}
	if its := MustParsePath("L7/2:L3/1").Iterations(); !reflect.DeepEqual(its, []int{2, 1}) {
		t.Errorf("iterations %v", its)
	}
}

// A block run in parallel iterations runs in each iteration's thread: its
// calls carry the iteration in their paths, and its appends to a
// top-level list are merged at the join in index order (rule 15a).
func TestBlockInParallelIterations(t *testing.T) {
	c := newCaller().on("s", echo)
	got := mustRun(t, `
let seen = []
let xs = parallel for x in [1, 2, 3]:
  do ask(x)
return { xs: xs, seen: seen }
block ask(q):
  append q to seen
  let r = call s
    q: q
  r.q
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	if want := `{"xs":[1,2,3],"seen":[1,2,3]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	ids := map[string]bool{}
	for _, id := range c.ids() {
		ids[id] = true
	}
	if !ids["L4/1:L8#1"] || !ids["L4/2:L8#1"] || !ids["L4/3:L8#1"] {
		t.Errorf("ids %v", c.ids())
	}
}

// A do: block or a block invocation may be a call's argument.
func TestBlockAsACallArgument(t *testing.T) {
	c := newCaller().on("s", echo)
	got := mustRun(t, `
let r = call s
  a: do twice(2)
  b: do:
    let t = 3
    t + 1
return r
block twice(n):
  n + n
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	if want := `{"a":4,"b":4}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
