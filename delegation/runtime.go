package delegation

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/proselang/prose/internal/recovered"
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

func (defaultRuntime) Group(ctx context.Context, _ Path, n, limit int, fn func(ctx context.Context, i int) (bool, error), decided func(GroupOutcome)) GroupOutcome {
	return RunGroup(newLocalSpawner(ctx, limit), n, fn, decided)
}

// The join.
//
// Every runtime runs a parallel loop or a set of parallel branches as one
// group: iterations start in index order, at most limit at once; the
// first iteration that wins (parallel first) or fails decides the group
// and cancels the others; iterations not started by then never start.
// RunGroup is that rule, written once; a runtime gives it a Spawner (the
// local runtime goroutines, the Temporal runtime workflow coroutines) and
// nothing else.

// Spawner is how a runtime runs the iterations of one group.
type Spawner interface {
	// Acquire waits for a free slot; false when the group was canceled
	// meanwhile (start no more).
	Acquire() bool
	// Go runs fn concurrently with the context an iteration gets, and
	// frees the slot when fn returns.
	Go(fn func(ctx context.Context))
	// Cancel cancels the context of every iteration.
	Cancel()
	// Wait waits for every fn started.
	Wait()
}

// GroupOutcome is how a group ended: the winning iteration (-1: none),
// the failing one (-1: none) and its error, how many iterations were
// started (in index order, so iterations 0..Started-1), and which of
// those ended after the decision (Dropped, ascending: the iterations the
// decision canceled, running when it was made). The iterations below
// Started that are not dropped ended up to the decision, the deciding one
// included: a parallel statement ended by a winner merges their appends
// (semantics.md, 15a). Without a decision every iteration ran to its end
// and Dropped is empty.
type GroupOutcome struct {
	Winner, Failed int
	Err            error
	Started        int
	Dropped        []int
}

// Decided reports whether an iteration won or failed.
func (o GroupOutcome) Decided() bool { return o.Winner >= 0 || o.Failed >= 0 }

// Decider is the iteration that won or failed, -1 when none did.
func (o GroupOutcome) Decider() int {
	if o.Failed >= 0 {
		return o.Failed
	}
	return o.Winner
}

// Keeps reports whether iteration i ended up to the decision (or the
// group ran to its end): it was started and not dropped.
func (o GroupOutcome) Keeps(i int) bool {
	if i < 0 || i >= o.Started {
		return false
	}
	_, found := slices.BinarySearch(o.Dropped, i)
	return !found
}

// Result is the group's answer as a loop uses it: the winner, else the
// failing iteration's error, else -1 and canceled (the caller's context
// error, when the group was stopped from outside).
func (o GroupOutcome) Result(canceled error) (int, error) {
	switch {
	case o.Failed >= 0:
		return -1, o.Err
	case o.Winner >= 0:
		return o.Winner, nil
	}
	return -1, canceled
}

// RunGroup runs fn(ctx, i) for i in [0,n) through s (see The join). A
// panic in an iteration is its error. decided, when not nil, is called
// once with the outcome when an iteration decides the group, before the
// others are canceled (a journal records it then, so that a process
// killed while the others are being stopped has it); the outcome RunGroup
// returns is the same.
func RunGroup(s Spawner, n int, fn func(ctx context.Context, i int) (won bool, err error), decided func(GroupOutcome)) GroupOutcome {
	g := &group{out: GroupOutcome{Winner: -1, Failed: -1}, cancel: s.Cancel, decided: decided, running: map[int]bool{}}
	for i := 0; i < n; i++ {
		if !s.Acquire() {
			break // decided or canceled: start no more
		}
		g.mu.Lock()
		counted := !g.done // started after the decision: neither kept nor dropped
		if counted {
			g.out.Started++
			g.running[i] = true
		}
		g.mu.Unlock()
		s.Go(func(ctx context.Context) {
			won, err := runIteration(ctx, i, fn)
			g.finish(i, won, err)
		})
	}
	s.Wait()
	s.Cancel()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out
}

func runIteration(ctx context.Context, i int, fn func(ctx context.Context, i int) (bool, error)) (won bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			won, err = false, fmt.Errorf("internal error in parallel iteration %d: %w", i+1, recovered.Capture(r))
		}
	}()
	return fn(ctx, i)
}

// group tracks the outcome of one RunGroup. Its lock is never held across
// a wait, so workflow coroutines may share it too.
type group struct {
	mu      sync.Mutex
	cancel  func()
	decided func(GroupOutcome)
	done    bool
	running map[int]bool // started, counted and not ended, until the decision
	out     GroupOutcome
}

// finish notes how iteration i ended; the first win or error decides:
// the iterations running then are dropped (they end after it), and the
// rest are canceled.
func (g *group) finish(i int, won bool, err error) {
	g.mu.Lock()
	if g.done {
		g.mu.Unlock()
		return
	}
	delete(g.running, i)
	if !won && err == nil {
		g.mu.Unlock()
		return
	}
	g.done = true
	if err != nil {
		g.out.Failed, g.out.Err = i, err
	} else {
		g.out.Winner = i
	}
	for j := range g.running {
		g.out.Dropped = append(g.out.Dropped, j)
	}
	slices.Sort(g.out.Dropped)
	g.running = nil
	out := g.out
	g.mu.Unlock()
	if g.decided != nil {
		g.decided(out)
	}
	g.cancel()
}

// localSpawner runs a group's iterations on goroutines.
type localSpawner struct {
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup
}

func newLocalSpawner(ctx context.Context, limit int) *localSpawner {
	cctx, cancel := context.WithCancel(ctx)
	return &localSpawner{ctx: cctx, cancel: cancel, sem: make(chan struct{}, max(limit, 1))}
}

func (s *localSpawner) Acquire() bool {
	if s.ctx.Err() != nil {
		return false
	}
	select {
	case s.sem <- struct{}{}:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func (s *localSpawner) Go(fn func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		fn(s.ctx)
	}()
}

func (s *localSpawner) Cancel() { s.cancel() }
func (s *localSpawner) Wait()   { s.wg.Wait() }
