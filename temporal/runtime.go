package temporal

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/delegation"
)

// wctx is the context.Context the evaluator carries inside a workflow: a
// view of a workflow.Context. The evaluator only asks it Err() and hands
// it on unchanged (every context it derives comes from this runtime), so
// the runtime, the callers and the judge below get it back as it is and
// take the workflow.Context out of it; no context value is involved. Done
// is nil (never closed) so that nothing selects on a Go channel inside
// workflow code.
type wctx struct {
	w      workflow.Context
	parent *wctx
	// deadline and expired belong to a context made by WithTimeout:
	// expired is set when the call's timeout fired.
	deadline time.Time
	expired  bool
	// remote counts the activities in flight under this context; the
	// timeout timer then leaves the timeout to the worker (see WithTimeout).
	remote int
	run    *runState
}

func (c *wctx) Deadline() (time.Time, bool) {
	for x := c; x != nil; x = x.parent {
		if !x.deadline.IsZero() {
			return x.deadline, true
		}
	}
	return time.Time{}, false
}

func (c *wctx) Done() <-chan struct{} { return nil }

func (c *wctx) Err() error {
	for x := c; x != nil; x = x.parent {
		if x.expired {
			return context.DeadlineExceeded
		}
	}
	if c.w.Err() != nil {
		return context.Canceled
	}
	return nil
}

func (c *wctx) Value(any) any { return nil }

func (c *wctx) child(w workflow.Context) *wctx {
	return &wctx{w: w, parent: c, run: c.run}
}

// fromContext finds the workflow context the evaluator's ctx stands for.
func fromContext(ctx context.Context) (*wctx, error) {
	if c, ok := ctx.(*wctx); ok {
		return c, nil
	}
	return nil, fmt.Errorf("internal error: a Temporal service was called outside its workflow (context %T)", ctx)
}

// runtime is the evaluator's Runtime inside a workflow.
type runtime struct {
	root workflow.Context
	// backstop is how long after a remote call's timeout the workflow
	// gives up on the worker that runs it.
	backstop time.Duration
}

var _ delegation.Runtime = (*runtime)(nil)
var _ delegation.Deadliner = (*runtime)(nil)

func (r *runtime) Now() time.Time { return workflow.Now(r.root) }

func (r *runtime) Jitter(seed string) float64 { return delegation.DefaultRuntime().Jitter(seed) }

func (r *runtime) Sleep(ctx context.Context, d time.Duration) error {
	c, err := fromContext(ctx)
	if err != nil {
		return err
	}
	if d <= 0 {
		return c.Err()
	}
	if err := workflow.Sleep(c.w, d); err != nil {
		return c.Err()
	}
	return c.Err()
}

// WithTimeout gives a call attempt its deadline. A workflow timer fires at
// the deadline and cancels what runs under it (a nested spec's calls); a
// remote call in flight enforces its own timeout on the worker, so the
// timer then waits a further backstop before giving up on that worker.
func (r *runtime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	parent, err := fromContext(ctx)
	if err != nil {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		return cctx, cancel
	}
	w, cancel := workflow.WithCancel(parent.w)
	c := parent.child(w)
	c.deadline = workflow.Now(r.root).Add(d)
	workflow.Go(w, func(tctx workflow.Context) {
		if workflow.Sleep(tctx, d) != nil {
			return // the call ended first
		}
		if c.remote > 0 {
			if workflow.Sleep(tctx, r.backstop) != nil {
				return
			}
		}
		c.expired = true
		cancel()
	})
	return c, func() { cancel() }
}

func (r *runtime) All(ctx context.Context, _ delegation.Path, n, limit int, fn func(ctx context.Context, i int) error) error {
	_, err := r.spawn(ctx, n, limit, func(ctx context.Context, i int) (bool, error) {
		return false, fn(ctx, i)
	})
	return err
}

func (r *runtime) First(ctx context.Context, _ delegation.Path, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	return r.spawn(ctx, n, limit, fn)
}

// spawn is the workflow form of the default runtime's: coroutines instead
// of goroutines, a workflow semaphore for the limit, the first win or
// error cancelling the rest. Coroutines run one at a time, so the outcome
// needs no lock; which one finishes first is decided by the history.
func (r *runtime) spawn(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	parent, err := fromContext(ctx)
	if err != nil {
		return -1, err
	}
	if n <= 0 {
		return -1, parent.Err()
	}
	w, cancel := workflow.WithCancel(parent.w)
	defer cancel()
	sem := workflow.NewSemaphore(w, int64(max(limit, 1)))
	wg := workflow.NewWaitGroup(w)
	done, winner := false, -1
	var first error
	for i := 0; i < n; i++ {
		if sem.Acquire(w, 1) != nil {
			break // cancelled: start no more
		}
		wg.Add(1)
		workflow.Go(w, func(gw workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			won, err := func() (won bool, err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("internal error: panic in parallel iteration %d: %v", i+1, p)
					}
				}()
				return fn(parent.child(gw), i)
			}()
			if done || (!won && err == nil) {
				return
			}
			done = true
			if err != nil {
				first = err
			} else {
				winner = i
			}
			cancel()
		})
	}
	wg.Wait(parent.w)
	switch {
	case first != nil:
		return -1, first
	case winner >= 0:
		return winner, nil
	}
	return -1, parent.Err()
}
