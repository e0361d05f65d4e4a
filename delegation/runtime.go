package delegation

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
)

// Deadliner is an optional extension of Runtime: when the host's Runtime
// implements it, the evaluator uses it to put a call's `timeout` on the
// attempt's context (a replaying or simulated runtime can then decide when
// a timeout fires). Otherwise context.WithTimeout is used.
type Deadliner interface {
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
}

// Pauser is an optional extension of Runtime: when the host's Runtime
// implements it, the evaluator waits out a call's backoff through Pause,
// with the call's id (a journaled run lets other iterations go on
// meanwhile, and knows whose wait it is). Otherwise Sleep is used.
type Pauser interface {
	Pause(ctx context.Context, id Path, d time.Duration) error
}

// DefaultRuntime returns the Runtime of an ordinary local run: goroutines
// for parallel work, the real clock, and jitter derived from a hash of the
// id (so a re-run draws the same numbers).
func DefaultRuntime() Runtime { return defaultRuntime{} }

type defaultRuntime struct{}

func (defaultRuntime) Now() time.Time { return time.Now() }

func (defaultRuntime) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (defaultRuntime) Jitter(seed string) float64 {
	h := fnv.New64a()
	h.Write([]byte(seed))
	return float64(h.Sum64()>>11) / (1 << 53)
}

func (defaultRuntime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

func (defaultRuntime) All(ctx context.Context, _ Path, n, limit int, fn func(ctx context.Context, i int) error) error {
	_, err := spawn(ctx, n, limit, func(ctx context.Context, i int) (bool, error) {
		return false, fn(ctx, i)
	})
	return err
}

func (defaultRuntime) First(ctx context.Context, _ Path, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	return spawn(ctx, n, limit, fn)
}

// spawn runs fn(i) for i in [0,n) on goroutines, at most limit at once. The
// first error or the first win cancels the rest; whichever came first is
// the outcome. Iterations not yet started when that happens never start.
func spawn(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	if n <= 0 {
		return -1, ctx.Err()
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &group{cancel: cancel, winner: -1}
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-cctx.Done():
			i = n // start no more
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					g.finish(i, false, fmt.Errorf("internal error: panic in parallel iteration %d: %v", i+1, r))
				}
			}()
			won, err := fn(cctx, i)
			g.finish(i, won, err)
		}(i)
	}
	wg.Wait()
	return g.outcome(ctx)
}

// group tracks the outcome of one spawn.
type group struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   bool
	winner int
	err    error
}

// finish notes how iteration i ended; the first win or error decides.
func (g *group) finish(i int, won bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || (!won && err == nil) {
		return
	}
	g.done = true
	if err != nil {
		g.err = err
	} else {
		g.winner = i
	}
	g.cancel()
}

// outcome is the winner, the first error, or, when neither, the caller's
// cancellation (some iterations may not have run).
func (g *group) outcome(ctx context.Context) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.err != nil:
		return -1, g.err
	case g.winner >= 0:
		return g.winner, nil
	}
	return -1, ctx.Err()
}
