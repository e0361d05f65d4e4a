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

func (defaultRuntime) Jitter(id string) float64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return float64(h.Sum64()>>11) / (1 << 53)
}

func (defaultRuntime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

func (defaultRuntime) All(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	_, err := spawn(ctx, n, limit, func(ctx context.Context, i int) (bool, error) {
		return false, fn(ctx, i)
	})
	return err
}

func (defaultRuntime) First(ctx context.Context, id string, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	return spawn(ctx, n, limit, fn)
}

// spawn runs fn(i) for i in [0,n) on goroutines, at most limit at once. The
// first error or the first win cancels the rest; whichever came first is
// the outcome. Iterations not yet started when that happens never start.
func spawn(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	if n <= 0 {
		return -1, ctx.Err()
	}
	if limit <= 0 {
		limit = 1
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		done    bool
		winner  = -1
		first   error
		wg      sync.WaitGroup
		sem     = make(chan struct{}, limit)
		stopped bool
	)
	finish := func(i int, won bool, err error) {
		mu.Lock()
		defer mu.Unlock()
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
	}
	for i := 0; i < n && !stopped; i++ {
		select {
		case sem <- struct{}{}:
		case <-cctx.Done():
			stopped = true
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					finish(i, false, fmt.Errorf("internal error: panic in parallel iteration %d: %v", i+1, r))
				}
			}()
			won, err := fn(cctx, i)
			finish(i, won, err)
		}(i)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	switch {
	case first != nil:
		return -1, first
	case winner >= 0:
		return winner, nil
	}
	// Nothing won and nothing failed: report a cancellation of the caller
	// (some iterations may not have run).
	return -1, ctx.Err()
}
