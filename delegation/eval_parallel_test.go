package delegation

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proselang/prose/internal/recovered"
)

// barrier holds calls until n of them are waiting at once, which proves
// they overlap without timing them. A call that does not meet the others
// within a minute (they run one after another) fails, saying how many it
// met: the minute only guards against a hang, nothing is measured.
type barrier struct {
	n    int64
	in   atomic.Int64
	full chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: int64(n), full: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context) error {
	if b.in.Add(1) == b.n {
		close(b.full)
	}
	select {
	case <-b.full:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return fmt.Errorf("only %d of %d calls were running at once", b.in.Load(), b.n)
	}
}

// sleeper answers its "v" argument after "ms" milliseconds, or stops
// when ctx is done.
func sleeper(ctx context.Context, req *CallRequest) (Value, error) {
	ms, _ := req.Args.Get("ms")
	v, _ := req.Args.Get("v")
	select {
	case <-time.After(time.Duration(ms.(int64)) * time.Millisecond):
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestParallelKeepsInputOrder(t *testing.T) {
	c := newCaller().on("s", sleeper)
	got := mustRun(t, `
let out = parallel for ms, i in [30, 1, 15, 5]:
  call s
    ms: ms
    v: i
return out
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	if got != "[0,1,2,3]" {
		t.Errorf("got %s", got)
	}
}

func TestParallelErrorCancelsSiblings(t *testing.T) {
	var canceled atomic.Int64
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		if v, _ := req.Args.Get("v"); v == int64(2) {
			return nil, errors.New("broken")
		}
		<-ctx.Done()
		canceled.Add(1)
		return nil, ctx.Err()
	})
	e := runErr(t, `
let out = parallel repeat 4 as k:
  call s
    v: k
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	wantErr(t, e, "test.md:3:3: call 's' failed after 1 attempt: broken")
	if e.Kind != KindCall {
		t.Errorf("kind %s", e.Kind)
	}
	// Every sibling that started saw the cancellation (the rest never ran).
	if n := canceled.Load(); n != c.calls.Load()-1 {
		t.Errorf("%d of %d siblings saw the cancellation", n, c.calls.Load()-1)
	}
}

func TestMaxParallelBoundsConcurrency(t *testing.T) {
	var cur, peak atomic.Int64
	var bar *barrier
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		// The first calls wait for each other until the bound is reached:
		// the peak then equals the bound whatever the machine's speed.
		if err := bar.wait(ctx); err != nil {
			return nil, err
		}
		return nil, nil
	})
	for _, limit := range []int{0, 3} {
		want := int64(limit)
		if limit == 0 {
			want = 8
		}
		peak.Store(0)
		bar = newBarrier(int(want))
		mustRun(t, "parallel repeat 20:\n  call s\n", map[string]Value{"s": svc("s")}, &Host{Caller: c, MaxParallel: limit})
		if p := peak.Load(); p != want {
			t.Errorf("limit %d: peak concurrency %d, want %d", limit, p, want)
		}
	}
	// The bound is per loop: with one slot, an outer iteration holding its
	// loop's slot still runs its inner parallel loop (a bound shared by
	// both loops would wait forever; the minute only guards the hang).
	bar = newBarrier(1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prog := parse(t, "parallel repeat 2:\n  parallel repeat 2:\n    call s\n")
	if _, err := Run(ctx, prog, map[string]Value{"s": svc("s")}, &Host{Caller: c, MaxParallel: 1}); err != nil {
		t.Errorf("nested parallel loops with MaxParallel 1: %v", err)
	}
}

func TestParallelFirstTakesTheWinner(t *testing.T) {
	var sawCancel atomic.Int64
	losers := newBarrier(3) // the two losers and the winner meet
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		if v, _ := req.Args.Get("v"); v == "fast" {
			// Win only once both others are in their calls.
			if err := losers.wait(ctx); err != nil {
				return nil, err
			}
			return "fast result", nil
		}
		if err := losers.wait(ctx); err != nil {
			return nil, err
		}
		<-ctx.Done() // blocks until the winner cancels it
		sawCancel.Add(1)
		return nil, ctx.Err()
	})
	g := map[string]Value{"s": svc("s"), "cands": jv(t, `["slow1", "fast", "slow2"]`)}
	got := mustRun(t, `
let winner = parallel first for cand in cands:
  let r = call s
    v: cand
  return { cand: cand, r: r }
return winner
`, g, &Host{Caller: c})
	if got != `{"cand":"fast","r":"fast result"}` {
		t.Errorf("got %s", got)
	}
	if n := sawCancel.Load(); n != 2 {
		t.Errorf("%d losers saw ctx.Done, want 2", n)
	}
}

func TestParallelFirstWithoutWinnerIsNull(t *testing.T) {
	got := mustRun(t, `
let w = parallel first repeat 3 as k:
  if k > 5:
    return k
  let nothing = k
let stmt = []
parallel first for x in [1, 2]:
  return x
return [w, stmt]
`, nil, nil)
	if got != "[null,[]]" {
		t.Errorf("got %s", got)
	}
}

func TestParallelFirstAcceptsOnlyReturningIterations(t *testing.T) {
	// Errors caught inside an iteration do not win; the first acceptable
	// result does.
	failed := make(chan struct{})
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		v, _ := req.Args.Get("v")
		if v == int64(1) {
			defer close(failed)
			return nil, errors.New("no")
		}
		// Answer only after iteration 1's call has failed, so its caught
		// error has come first and did not win.
		select {
		case <-failed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return v, nil
	})
	got := mustRun(t, `
let w = parallel first for v in [1, 2]:
  try:
    return call s
      v: v
  catch:
    continue
return w
`, map[string]Value{"s": svc("s")}, &Host{Caller: c})
	if got != "2" {
		t.Errorf("got %s", got)
	}
}

// TestFanOutOverlaps: the 8 calls of a parallel repeat all run at once
// (each waits until all 8 have started), and the answers keep their order.
func TestFanOutOverlaps(t *testing.T) {
	bar := newBarrier(8)
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		if err := bar.wait(ctx); err != nil {
			return nil, err
		}
		v, _ := req.Args.Get("v")
		return v, nil
	})
	got := mustRun(t, "return parallel repeat 8 as k:\n  call s\n    v: k\n", map[string]Value{"s": svc("s")}, &Host{Caller: c})
	if got != "[1,2,3,4,5,6,7,8]" {
		t.Errorf("got %s", got)
	}
}

func TestDefaultRuntime(t *testing.T) {
	rt := DefaultRuntime()
	if a, b := rt.Jitter("L3#1"), rt.Jitter("L3#1"); a != b || a < 0 || a >= 1 {
		t.Errorf("jitter %v %v", a, b)
	}
	if rt.Jitter("L3#1") == rt.Jitter("L3#2") {
		t.Error("jitter does not depend on the id")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rt.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep on a canceled ctx: %v", err)
	}
	// Otherwise it waits out d (the model client's retries use it too).
	start := time.Now()
	if err := rt.Sleep(context.Background(), 5*time.Millisecond); err != nil || time.Since(start) < 5*time.Millisecond {
		t.Errorf("sleep of 5ms: %v after %v", err, time.Since(start))
	}
	// A canceled caller: the group reports it even when no iteration failed.
	_, err := rt.Group(ctx, MustParsePath("L1"), 3, 2, func(context.Context, int) (bool, error) { return false, nil }, nil).Result(ctx.Err())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("group on canceled ctx: %v", err)
	}
	// A panic in an iteration becomes an error.
	out := rt.Group(context.Background(), MustParsePath("L1"), 2, 2, func(_ context.Context, i int) (bool, error) {
		if i == 1 {
			panic("bad")
		}
		return false, nil
	}, nil)
	_, err = out.Result(nil)
	wantErr(t, err, "internal error in parallel iteration 2: panic: bad (in delegation.TestDefaultRuntime")
	if st := recovered.StackOf(err); !strings.Contains(string(st), "eval_parallel_test.go") {
		t.Errorf("the panic's stack is lost:\n%s", st)
	}
	if out.Failed != 1 {
		t.Errorf("failing iteration %d, want 1", out.Failed)
	}
	// One at a time: iteration 2 wins, 0 and 1 ended before it and are
	// kept, 3 and 4 never start.
	out = rt.Group(context.Background(), MustParsePath("L1"), 5, 1, func(_ context.Context, i int) (bool, error) { return i == 2, nil }, nil)
	if w, err := out.Result(nil); w != 2 || err != nil || out.Started != 3 || len(out.Dropped) != 0 || !out.Keeps(0) || !out.Keeps(2) || out.Keeps(3) {
		t.Errorf("first: %d, %v, %+v", w, err, out)
	}
	w, err := rt.Group(context.Background(), MustParsePath("L1"), 3, 3, func(_ context.Context, i int) (bool, error) {
		return false, fmt.Errorf("e%d", i)
	}, nil).Result(nil)
	if w != -1 || err == nil {
		t.Errorf("first with errors: %d, %v", w, err)
	}
	// An iteration still running at the win ends after it: dropped. The
	// outcome is told at the decision, as the group returns it.
	var decided []GroupOutcome
	out = rt.Group(context.Background(), MustParsePath("L1"), 2, 2, func(ctx context.Context, i int) (bool, error) {
		if i == 0 {
			<-ctx.Done() // canceled by the win
			return false, ctx.Err()
		}
		return true, nil
	}, func(o GroupOutcome) { decided = append(decided, o) })
	if len(decided) != 1 || !reflect.DeepEqual(decided[0], out) {
		t.Errorf("decided with %+v, returned %+v", decided, out)
	}
	if out.Winner != 1 || out.Started != 2 || !slices.Equal(out.Dropped, []int{0}) || out.Keeps(0) || !out.Keeps(1) {
		t.Errorf("win with one running: %+v", out)
	}
}
