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

// Group runs a parallel group by the evaluator's one rule
// (delegation.RunGroup) on workflow coroutines: a workflow semaphore for
// the limit, the first win or error cancelling the rest. Coroutines run
// one at a time; which one finishes first, and so the whole outcome, is
// decided by the history.
func (r *runtime) Group(ctx context.Context, _ delegation.Path, n, limit int, fn func(ctx context.Context, i int) (bool, error), decided func(delegation.GroupOutcome)) delegation.GroupOutcome {
	parent, err := fromContext(ctx)
	if err != nil {
		return delegation.GroupOutcome{Winner: -1, Failed: 0, Err: err}
	}
	if n <= 0 {
		return delegation.GroupOutcome{Winner: -1, Failed: -1}
	}
	w, cancel := workflow.WithCancel(parent.w)
	defer cancel()
	s := &workflowSpawner{parent: parent, w: w, cancel: cancel,
		sem: workflow.NewSemaphore(w, int64(max(limit, 1))), wg: workflow.NewWaitGroup(w)}
	return delegation.RunGroup(s, n, fn, decided)
}

// workflowSpawner is delegation.Spawner on workflow coroutines.
type workflowSpawner struct {
	parent *wctx
	w      workflow.Context
	cancel workflow.CancelFunc
	sem    workflow.Semaphore
	wg     workflow.WaitGroup
}

func (s *workflowSpawner) Acquire() bool { return s.sem.Acquire(s.w, 1) == nil }

func (s *workflowSpawner) Go(fn func(ctx context.Context)) {
	s.wg.Add(1)
	workflow.Go(s.w, func(gw workflow.Context) {
		defer s.wg.Done()
		defer s.sem.Release(1)
		fn(s.parent.child(gw))
	})
}

func (s *workflowSpawner) Cancel() { s.cancel() }
func (s *workflowSpawner) Wait()   { s.wg.Wait(s.parent.w) }
