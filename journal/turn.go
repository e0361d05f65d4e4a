package journal

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Journaled answers in journal order.
//
// A resume or a replay answers journaled calls at once, so the iterations
// of a parallel loop would race to the statements after their calls (an
// `append` to a shared list, a `parallel first` return) in an order of
// the scheduler's choosing. To come out as the run did, the answers are
// handed out in the order the calls completed in the journal, one turn at
// a time: the answer to a call waits until every call journaled before it
// has been answered, and until the iteration that got the previous answer
// has moved on (made its next call or judgment, or ended), so what it
// did with that answer happens first too.

// turnStall bounds how long an answer waits for its turn while nothing
// else moves (an earlier journaled call that this run never makes, or an
// iteration that moves on without a hook); it then goes ahead.
const turnStall = time.Second

// iterToken marks the context of one iteration of a parallel loop; parent
// is the enclosing loop's iteration.
type iterToken struct{ parent *iterToken }

type iterKey struct{}

// withIter returns ctx marked as a new iteration.
func withIter(ctx context.Context) (context.Context, *iterToken) {
	t := &iterToken{parent: iterOf(ctx)}
	return context.WithValue(ctx, iterKey{}, t), t
}

func iterOf(ctx context.Context) *iterToken {
	t, _ := ctx.Value(iterKey{}).(*iterToken)
	return t
}

// within reports whether t is u or inside u.
func (t *iterToken) within(u *iterToken) bool {
	for ; t != nil; t = t.parent {
		if t == u {
			return true
		}
	}
	return false
}

// moved records that the iteration of ctx reached a call, a judgment or a
// loop: if it holds the turn, the turn passes on.
func (x *index) moved(ctx context.Context) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.holder != nil && iterOf(ctx).within(x.holder) {
		x.release()
	}
}

// ended records that iteration t ended.
func (x *index) ended(t *iterToken) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.holder.within(t) {
		x.release()
	}
}

// release passes the turn on. x.mu must be held.
func (x *index) release() {
	x.holder = nil
	close(x.changed)
	x.changed = make(chan struct{})
}

// waitTurn waits for the turn of call k: until every completed call
// journaled before it has been answered and the iteration that got the
// last answer has moved on. It gives up when ctx is done or nothing moves
// for turnStall, skipping the calls it waited for.
func (x *index) waitTurn(ctx context.Context, k callKey) {
	s, ok := x.seq[k]
	if !ok {
		return
	}
	x.skipNested(k)
	for {
		x.mu.Lock()
		if x.low >= s && x.holder == nil {
			x.mu.Unlock()
			return
		}
		ch := x.changed
		x.mu.Unlock()
		t := time.NewTimer(turnStall)
		select {
		case <-ch:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
			x.mu.Lock()
			if x.changed == ch {
				x.holder = nil
				x.advance(s)
			}
			x.mu.Unlock()
		}
	}
}

// answered marks k answered to the iteration of ctx, which holds the turn
// until it moves on.
func (x *index) answered(ctx context.Context, k callKey) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.used[k] {
		x.used[k] = true
		x.pending--
	}
	x.holder = iterOf(ctx)
	x.advance(x.low)
}

// skipNested marks the calls of the nested run started by call k as
// answered: k is answered from the journal, so they will not be made.
func (x *index) skipNested(k callKey) {
	prefix := k.id + ">"
	if k.attempt > 1 {
		prefix = fmt.Sprintf("%s#%d>", k.id, k.attempt)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.low >= x.seq[k] {
		return
	}
	for _, nk := range x.order[x.low:x.seq[k]] {
		if !x.used[nk] && strings.HasPrefix(nk.id, prefix) {
			x.used[nk] = true
			x.pending--
		}
	}
	x.advance(x.low)
}

// advance moves low to at least to, then past every answered place, and
// wakes the waiters. x.mu must be held.
func (x *index) advance(to int) {
	x.low = max(x.low, to)
	for x.low < len(x.order) && x.used[x.order[x.low]] {
		x.low++
	}
	close(x.changed)
	x.changed = make(chan struct{})
}
