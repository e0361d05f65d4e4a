package delegation

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// randomDelays answers its "x" argument doubled after a delay of 0 to 4
// ms drawn from a seeded source, so iterations finish in a different
// order on each seed.
func randomDelays(seed uint64) func(ctx context.Context, req *CallRequest) (Value, error) {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 17))
	return func(ctx context.Context, req *CallRequest) (Value, error) {
		mu.Lock()
		d := time.Duration(rng.IntN(4000)) * time.Microsecond
		mu.Unlock()
		x, _ := req.Args.Get("x")
		select {
		case <-time.After(d):
			return x.(int64) * 2, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// A parallel body's appends to an outer list are merged at the join in
// index order, whatever order the iterations finish in: run live 50
// times with random service delays, the value is the same every time.
// Nested parallel loops merge level by level, in index order too.
func TestParallelAppendsMergeInIndexOrder(t *testing.T) {
	prog := parse(t, `
let got = []
parallel for x in items:
  let r = call s
    x: x
  append r to got
  record x in got
  parallel repeat 2 as k:
    let q = call s
      x: k
    append [x, q] to got
return got
`)
	items := NewList()
	var want []string
	for i := range 20 {
		items.Append(int64(i))
		want = append(want, itoa(2*i), itoa(i), "["+itoa(i)+",2]", "["+itoa(i)+",4]")
	}
	wantJSON := "[" + strings.Join(want, ",") + "]"
	for seed := range uint64(50) {
		host := &Host{Caller: newCaller().on("s", randomDelays(seed)), MaxParallel: 8}
		v, err := Run(context.Background(), prog, map[string]Value{"s": svc("s"), "items": items}, host)
		if err != nil {
			t.Fatal(err)
		}
		if got := js(t, v); got != wantJSON {
			t.Fatalf("seed %d: got %s\nwant %s", seed, got, wantJSON)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// While a parallel loop runs, the lists it reads from outside do not
// change: an iteration sees neither its own appends nor its siblings'
// until the join. Lists an iteration makes itself grow in place.
func TestParallelAppendsAreSeenAfterTheJoin(t *testing.T) {
	got := mustRun(t, `
let outer = [0]
let seen = parallel repeat 3 as i:
  let mine = []
  append i to outer
  append i to mine
  { outer: outer.length, mine: mine.length }
return { seen: seen, outer: outer }
`, nil, nil)
	want := `{"seen":[{"outer":1,"mine":1},{"outer":1,"mine":1},{"outer":1,"mine":1}],"outer":[0,1,2,3]}`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// A parallel statement that fails merges none of its appends (a try can
// catch it); one a return ends merges the returning iteration's alone; a
// parallel body cannot change a list or object from outside it.
func TestParallelAppendsOnFailureAndReturn(t *testing.T) {
	got := mustRun(t, `
let out = []
try:
  parallel repeat 4 as i:
    append i to out
    if i == 3:
      throw "stop"
catch:
  append "caught" to out
return out
`, nil, nil)
	if got != `["caught"]` {
		t.Errorf("failed loop: got %s", got)
	}
	// Iterations 1 and 3 may end before 2 wins, 4 never does (the win
	// cancels it): the appends of those that ended are merged with the
	// winner's, in index order.
	host := &Host{Caller: newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		n, _ := req.Args.Get("n")
		if n == int64(4) {
			<-ctx.Done() // canceled by the win
			return nil, ctx.Err()
		}
		return n, nil
	}), MaxParallel: 4}
	for range 20 {
		got = mustRun(t, `
let out = []
let w = parallel first repeat 4 as i:
  let turn = call s
    n: i
  append turn to out
  if i == 2:
    return i
return { w: w, out: out }
`, map[string]Value{"s": svc("s")}, host)
		if got != `{"w":2,"out":[1,2,3]}` && got != `{"w":2,"out":[1,2]}` && got != `{"w":2,"out":[2,3]}` && got != `{"w":2,"out":[2]}` {
			t.Fatalf("parallel first: got %s", got)
		}
	}
	for _, code := range []string{
		"let xs = [1]\nparallel repeat 2 as i:\n  xs[0] = i\n",
		"let o = {a: 1}\nparallel:\n  o[\"a\"] = 2\n",
	} {
		e := runErr(t, code, nil, nil)
		wantErr(t, e, "a parallel body cannot change")
	}
	// What an iteration made, or got from a service, is its own to change.
	got = mustRun(t, `
let xs = parallel repeat 2 as i:
  let o = {n: 0}
  o["n"] = i
  let r = call s
  r["seen"] = true
  [o, r]
return xs
`, map[string]Value{"s": svc("s")}, &Host{Caller: newCaller().on("s", func(context.Context, *CallRequest) (Value, error) {
		return FromJSON([]byte(`{"seen":false}`))
	})})
	if got != `[[{"n":1},{"seen":true}],[{"n":2},{"seen":true}]]` {
		t.Errorf("own values: got %s", got)
	}
}

// A parallel loop of a huge count, with the step budget raised out of the
// way, holds no more than the value ceiling allows beyond its running
// iterations: it stops at the ceiling (or at a cancellation) having
// started about as many iterations as fit, never one per count.
func TestHugeParallelLoopStaysBounded(t *testing.T) {
	const n = int64(1) << 40
	start := func(fn func(ctx context.Context, calls int64) (Value, error)) (*fakeCaller, *Host) {
		c := newCaller()
		c.on("s", func(ctx context.Context, req *CallRequest) (Value, error) { return fn(ctx, c.calls.Load()) })
		return c, &Host{Caller: c, MaxSteps: math.MaxInt, MaxValueBytes: 4096, MaxParallel: 4}
	}
	g := map[string]Value{"s": svc("s"), "n": n}
	hundred := strings.Repeat("x", 98)

	// Collecting: each value is 100 bytes written out, so about 40 fit.
	c, host := start(func(context.Context, int64) (Value, error) { return hundred, nil })
	_, err := runGuarded(t, context.Background(), "let xs = parallel repeat n:\n  call s\nreturn xs.length", g, host)
	wantErr(t, err, "test.md:1:10: the values collected by this loop: value larger than the size ceiling of 4 KiB")
	if calls := c.calls.Load(); calls > 4096/100+2*4 {
		t.Errorf("%d iterations started for a ceiling that holds 40 values", calls)
	}

	// Appending to an outer list: each buffered append counts two bytes.
	c, host = start(func(context.Context, int64) (Value, error) { return int64(1), nil })
	_, err = runGuarded(t, context.Background(), "let out = []\nparallel repeat n:\n  let v = call s\n  append v to out\nreturn out.length", g, host)
	wantErr(t, err, "test.md:2:1: the appends of this parallel loop to lists from outside it")
	if calls := c.calls.Load(); calls > 4096/2+2*4 {
		t.Errorf("%d iterations started for a ceiling that holds 2048 appends", calls)
	}

	// Holding nothing, it runs until canceled, and stops then.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, host = start(func(_ context.Context, calls int64) (Value, error) {
		// At or past the 100th: with four calls at once, two can count
		// before either reads the count, and none would read exactly 100.
		if calls >= 100 {
			cancel()
		}
		return nil, nil
	})
	_, err = runGuarded(t, ctx, "parallel repeat n:\n  call s\nreturn 1", g, host)
	wantErr(t, err, "run canceled")
	if calls := c.calls.Load(); calls > 100+4 {
		t.Errorf("%d iterations started after a cancellation at the 100th", calls)
	}
}
