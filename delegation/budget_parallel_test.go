package delegation

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// callBarrier lets n callers through once all n have arrived, so that every
// iteration of a wide parallel loop waits in its call at the same time.
type callBarrier struct {
	n       int64
	arrived atomic.Int64
	once    sync.Once
	all     chan struct{}
}

func newCallBarrier(n int) *callBarrier { return &callBarrier{n: int64(n), all: make(chan struct{})} }

func (b *callBarrier) wait(ctx context.Context) error {
	if b.arrived.Add(1) == b.n {
		b.once.Do(func() { close(b.all) })
	}
	select {
	case <-b.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Iterations waiting in their calls hold none of the step budget: 2048 of
// them at once, with the default budget of 100000 statements, all finish,
// every time. (Before, each waiting iteration held up to 256 steps, so
// about 390 of them held the whole budget and the next failed with
// "step budget exceeded" after some 1,000 statements.)
func TestWideParallelLoopKeepsItsBudget(t *testing.T) {
	const n = 2048
	code := "let xs = parallel repeat " + itoa(n) + " as i:\n  call s\n    i: i\nreturn xs.length\n"
	prog := parse(t, code)
	for trial := range 20 {
		b := newCallBarrier(n)
		c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
			if err := b.wait(ctx); err != nil {
				return nil, err
			}
			return req.Args, nil
		})
		v, err := Run(context.Background(), prog, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: DefaultRuntime(), MaxParallel: n})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if got := js(t, v); got != itoa(n) {
			t.Fatalf("trial %d: result %s, want %d", trial, got, n)
		}
		if c.calls.Load() != n {
			t.Fatalf("trial %d: %d calls, want %d", trial, c.calls.Load(), n)
		}
	}
}

// A budget that is really spent still stops a wide loop, at the statement
// that went over it.
func TestWideParallelLoopStillStopsAtItsBudget(t *testing.T) {
	const n = 512
	code := "parallel repeat " + itoa(n) + ":\n  call s\n  repeat 10:\n    let a = 1\n"
	b := newCallBarrier(n)
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		return nil, b.wait(ctx)
	})
	_, err := Run(context.Background(), parse(t, code), map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: DefaultRuntime(), MaxParallel: n, MaxSteps: 3000})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindLimit || e.Limit != LimitSteps {
		t.Fatalf("want a step-budget error, got %v", err)
	}
	if line := e.Pos.Line; line != 3 && line != 4 {
		t.Errorf("error at line %d, want the loop's statements (3 or 4): %v", line, err)
	}
}
