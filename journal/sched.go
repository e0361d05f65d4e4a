package journal

import (
	"context"
	"fmt"
	"sync"
)

// Deterministic answers (resume and replay).
//
// A new run takes turns too, from its first parallel loop on: a call or
// judgment gives up the turn while its service works and takes it back in
// the order the services returned (returning), before its record is
// written. So the journal's order is the order in which the run went on,
// which is what a replay reproduces.
//
// A resume or a replay answers journaled calls by path. The iterations of
// a parallel loop share state (an `append` to a list, the winner of a
// `parallel first`), so what comes out depends on the order in which they
// get their answers and move on. To come out the same every time, the run
// is scheduled cooperatively while journaled answers remain: one thread
// of evaluation (the run, or one parallel iteration) holds the turn at a
// time, and passes it on only where it waits (a call or judgment, the join
// of a parallel loop, its end). When the turn is free it goes, in this
// order, to
//
//  1. a thread that is ready to run (a new iteration, a loop whose
//     iterations all ended), the earliest made ready first;
//  2. a waiting call or judgment whose context is canceled (it returns
//     canceled, as the journaled one did);
//  3. the waiting call or judgment whose journal record comes first: the
//     journaled run completed it first, so its answer is handed out first.
//
// When only calls and judgments without a completed record wait (the
// journaled run was stopped or canceled under them, or never made them),
// nothing in the journal can move the run on: a replay reports a
// divergence, a resume goes live from there (the scheduler steps aside and
// everything runs concurrently, as in a new run). No clock is read and
// nothing waits for time: the outcome depends on the journal alone.

// sched is the turn-taking of one resume or replay.
type sched struct {
	mu     sync.Mutex
	off    bool // no turns: before a new run's first parallel loop, or after a divergence
	failed bool // stepped aside for good
	busy   bool // a thread holds the turn
	clock  int  // orders ready threads
	ready  []*waiter
	calls  []*waiter // waiting calls and judgments
	// returning are the threads whose live call or judgment returned, in
	// the order they returned; each takes the turn back before it goes on
	// (and before its record is written), so the journal's order is the
	// order in which the run went on.
	returning []*waiter
}

// waiter is one thread waiting for the turn.
type waiter struct {
	wake  chan struct{}
	order int             // ready: when it became ready
	place int             // calls: journal place of its record; -1: none
	ctx   context.Context // calls: canceled means answer at once
	stuck bool            // granted with nothing in the journal to answer it
	woken bool
}

// wakeLocked lets w go on (once).
func (w *waiter) wakeLocked() {
	if !w.woken {
		w.woken = true
		close(w.wake)
	}
}

// newSched returns the scheduler of a run whose one thread holds the turn.
// A new run's is off until its first parallel loop (see group): calls made
// outside the evaluator, from anywhere, then take no turns.
func newSched(active bool) *sched { return &sched{busy: true, off: !active} }

// usable reports whether parallel loops run under the scheduler: it
// exists and did not step aside for good.
func (s *sched) usable() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.failed
}

// stepAside makes the rest of the run live: every waiter goes on at once.
func (s *sched) stepAside() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stepAsideLocked()
}

func (s *sched) stepAsideLocked() {
	s.failed = true
	if s.off {
		return
	}
	s.off = true
	for _, w := range append(append(s.ready, s.calls...), s.returning...) {
		w.wakeLocked()
	}
	s.ready, s.calls, s.returning = nil, nil, nil
}

// wait parks the calling thread, which holds the turn, until its call or
// judgment is answered: place is the journal place of the record that
// answers it, -1 when there is none. stuck is true when it was given the
// turn because nothing else could move (see the package comment); the
// caller then diverges (replay) or steps aside (resume).
func (s *sched) wait(ctx context.Context, place int) (stuck bool) {
	if s == nil {
		return false
	}
	s.mu.Lock()
	if s.off {
		s.mu.Unlock()
		return false
	}
	w := &waiter{wake: make(chan struct{}), place: place, ctx: ctx}
	s.calls = append(s.calls, w)
	s.busy = false
	s.passLocked()
	s.mu.Unlock()
	s.sleep(w)
	return w.stuck
}

// leave gives up the turn while the calling thread's call or judgment runs
// live; rejoin takes it back when it returned.
func (s *sched) leave() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.off {
		s.busy = false
		s.passLocked()
	}
}

func (s *sched) rejoin() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.off {
		s.mu.Unlock()
		return
	}
	w := &waiter{wake: make(chan struct{}), place: -1}
	s.returning = append(s.returning, w)
	s.passLocked()
	s.mu.Unlock()
	<-w.wake
}

// activate starts the turns of a new run (its first parallel loop).
func (s *sched) activate() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off && !s.failed {
		s.off, s.busy = false, true
	}
}

// sleep waits until w is woken. A context canceled from outside (Ctrl-C,
// a divergence) while nobody holds the turn passes it on, so the canceled
// call returns.
func (s *sched) sleep(w *waiter) {
	done := (<-chan struct{})(nil)
	if w.ctx != nil {
		done = w.ctx.Done()
	}
	for {
		select {
		case <-w.wake:
			return
		case <-done:
			done = nil
			s.mu.Lock()
			if !s.off && !s.busy {
				s.passLocked()
			}
			s.mu.Unlock()
		}
	}
}

// readyLocked queues a new waiter that is ready to run.
func (s *sched) readyLocked() *waiter {
	w := &waiter{wake: make(chan struct{}), place: -1}
	if s.off {
		w.wakeLocked()
		return w
	}
	s.clock++
	w.order = s.clock
	s.ready = append(s.ready, w)
	return w
}

// passLocked gives the free turn to the next waiter.
func (s *sched) passLocked() {
	if s.off || s.busy {
		return
	}
	grant := func(list *[]*waiter, i int) {
		w := (*list)[i]
		*list = append((*list)[:i], (*list)[i+1:]...)
		s.busy = true
		w.wakeLocked()
	}
	if len(s.ready) > 0 {
		grant(&s.ready, 0) // appended in order
		return
	}
	best := -1
	for i, w := range s.calls {
		if w.ctx != nil && w.ctx.Err() != nil {
			grant(&s.calls, i)
			return
		}
		if w.place >= 0 && (best < 0 || w.place < s.calls[best].place) {
			best = i
		}
	}
	if best >= 0 {
		grant(&s.calls, best)
		return
	}
	if len(s.returning) > 0 {
		grant(&s.returning, 0)
		return
	}
	if len(s.calls) > 0 {
		s.calls[0].stuck = true
		grant(&s.calls, 0)
	}
}

// group runs n iterations of a parallel loop under the scheduler, at most
// limit at once, like delegation.Runtime's All and First: the first error
// or win cancels the rest, and iterations not started by then never start.
// The calling thread holds the turn; it gives it up while it waits and
// gets it back when the loop is over.
func (s *sched) group(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	if n <= 0 {
		return -1, ctx.Err()
	}
	s.activate()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &schedGroup{s: s, n: n, fn: fn, ctx: cctx, cancel: cancel, winner: -1}
	s.mu.Lock()
	for g.next < n && g.running < max(limit, 1) {
		g.startLocked()
	}
	g.parent = &waiter{wake: make(chan struct{}), place: -1}
	if s.off {
		g.parent.wakeLocked()
	} else {
		s.busy = false
		s.passLocked()
	}
	s.mu.Unlock()
	<-g.parent.wake
	g.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case g.err != nil:
		return -1, g.err
	case g.winner >= 0:
		return g.winner, nil
	}
	return -1, ctx.Err()
}

type schedGroup struct {
	s             *sched
	n             int
	fn            func(ctx context.Context, i int) (bool, error)
	ctx           context.Context
	cancel        context.CancelFunc
	next, running int
	done          bool
	winner        int
	err           error
	parent        *waiter
	wg            sync.WaitGroup
}

// startLocked starts the next iteration, ready to run when it gets the
// turn.
func (g *schedGroup) startLocked() {
	i := g.next
	g.next++
	g.running++
	w := g.s.readyLocked()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		<-w.wake
		won, err := g.run(i)
		g.finish(i, won, err)
	}()
}

func (g *schedGroup) run(i int) (won bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: panic in parallel iteration %d: %v", i+1, r)
		}
	}()
	return g.fn(g.ctx, i)
}

// finish notes how iteration i ended (holding the turn), starts the next
// one, wakes the loop when all are over, and passes the turn on.
func (g *schedGroup) finish(i int, won bool, err error) {
	s := g.s
	s.mu.Lock()
	defer s.mu.Unlock()
	g.running--
	if !g.done && (won || err != nil) {
		g.done = true
		if err != nil {
			g.err = err
		} else {
			g.winner = i
		}
		g.cancel()
	}
	if !g.done && g.next < g.n {
		g.startLocked()
	}
	if g.running == 0 {
		if s.off {
			g.parent.wakeLocked()
		} else {
			s.clock++
			g.parent.order = s.clock
			s.ready = append(s.ready, g.parent)
		}
	}
	if !s.off {
		s.busy = false
		s.passLocked()
	}
}
