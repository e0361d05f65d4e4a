package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/delegation"
)

// WrapCaller returns a Caller that journals every attempt it passes to
// inner. When resuming, an attempt whose (call id, attempt, arguments
// digest) matches a completed record is answered from the journal without
// calling inner; when replaying, every attempt must be answered so, and
// anything else is a divergence that stops the run.
func (r *Run) WrapCaller(inner delegation.Caller) delegation.Caller {
	return &caller{r: r, inner: inner}
}

type caller struct {
	r     *Run
	inner delegation.Caller
}

func (c *caller) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	args := ValueDigest(req.Args)
	id := scopedID(ctx, req.ID)
	if v, err, ok := c.r.answerCall(ctx, req, id, args); ok {
		return v, err
	}
	return c.r.liveCall(withScope(ctx, id, req.Attempt), c.inner, req, id, args)
}

type scopeKey struct{}

// scopedID is the journal key of a call or judgment id. A call made by a
// nested run (a service that runs another spec with the same hooks) is
// keyed under the call that started that run, "L12/2>L5" ("L12/2#2>L5" for
// its second attempt), so the ids of two specs never collide. A host that
// already prefixes nested ids that way is left alone.
func scopedID(ctx context.Context, id string) string {
	prefix, ok := ctx.Value(scopeKey{}).(string)
	if !ok || strings.HasPrefix(id, prefix) {
		return id
	}
	return prefix + id
}

// withScope marks ctx as belonging to attempt `attempt` of call id.
func withScope(ctx context.Context, id string, attempt int) context.Context {
	prefix := id + ">"
	if attempt > 1 {
		prefix = fmt.Sprintf("%s#%d>", id, attempt)
	}
	return context.WithValue(ctx, scopeKey{}, prefix)
}

// answerCall answers req from the journal when it can. ok is false when
// the attempt must run live.
func (r *Run) answerCall(ctx context.Context, req *delegation.CallRequest, id, args string) (v delegation.Value, err error, ok bool) {
	if r.idx == nil {
		return nil, nil, false
	}
	r.idx.moved(ctx)
	k := callKey{id, req.Attempt}
	rec := r.idx.calls[k]
	var div *DivergenceError
	switch {
	case rec == nil && r.mode != Replaying:
		return nil, nil, false
	case rec == nil && r.idx.canceled[k]:
		if err := awaitCancel(ctx); err != nil {
			return nil, err, true // canceled again, as in the journaled run
		}
		div = &DivergenceError{What: "call", ID: id, Attempt: req.Attempt, Pos: req.Pos,
			Reason: "the journaled run canceled this call, and nothing cancels it in the replay"}
	case rec == nil:
		reason := "the journal holds no such call"
		if r.idx.started[k] != nil {
			reason = "the journaled run stopped while this call was running (prose resume runs it live)"
		}
		div = &DivergenceError{What: "call", ID: id, Attempt: req.Attempt, Pos: req.Pos, Reason: reason}
	case rec.Args != args:
		if r.opt.Force && r.mode == Resuming {
			return nil, nil, false
		}
		div = &DivergenceError{What: "call", ID: id, Attempt: req.Attempt, Pos: req.Pos,
			Reason: fmt.Sprintf("its arguments differ (journal sha256 %.12s..., now %.12s...)", rec.Args, args)}
	}
	if div != nil {
		r.fail(div)
		return nil, div, true
	}
	r.idx.waitTurn(ctx, k)
	r.idx.answered(ctx, k)
	r.countCall()
	v, err = r.decodeOutcome(rec)
	return v, err, true
}

// cancelWait bounds how long a replayed call that the journaled run saw
// canceled waits for the replay to cancel it too (a sibling's replayed
// failure does so at once).
const cancelWait = 2 * time.Second

// awaitCancel waits until ctx is done (returning its error) or cancelWait
// passes (returning nil).
func awaitCancel(ctx context.Context) error {
	t := time.NewTimer(cancelWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// decodeOutcome rebuilds an attempt's value or error from its record.
func (r *Run) decodeOutcome(rec *Record) (delegation.Value, error) {
	rec = r.vault.revealRecord(rec)
	if rec.Kind != "" {
		if n := rec.Nested; n != nil {
			return nil, &delegation.Error{Pos: n.Pos, Msg: n.Msg, Kind: n.Kind, Chain: n.Chain}
		}
		return nil, &ReplayedError{Msg: rec.Err, Kind: rec.Kind}
	}
	v, err := delegation.FromJSON(rec.Result)
	if err != nil {
		err = fmt.Errorf("journal %s: call %s: corrupt result: %w", r.Path(), rec.ID, err)
		r.fail(err)
		return nil, err
	}
	return v, nil
}

// liveCall runs req on inner with a "start" record before and an "end"
// record after; the end of a completed attempt is on disk before it
// returns.
func (r *Run) liveCall(ctx context.Context, inner delegation.Caller, req *delegation.CallRequest, id, args string) (delegation.Value, error) {
	slot := ""
	if req.Service != nil {
		slot = req.Service.ServiceName()
	}
	pos := req.Pos.String()
	start := r.opt.Now()
	r.write(&Record{Type: TypeStart, Time: start.UTC(), ID: id, Pos: pos, Attempt: req.Attempt, Slot: slot, Args: args}, false)
	v, err := inner.Call(ctx, req)
	end := r.opt.Now()
	rec := &Record{Type: TypeEnd, Time: end.UTC(), ID: id, Attempt: req.Attempt, Slot: slot, Args: args,
		MS: float64(end.Sub(start).Microseconds()) / 1000}
	if jerr := r.encodeOutcome(ctx, rec, v, err); jerr != nil {
		v, err = nil, jerr // the run sees what a resume would
	}
	if rec.completed() {
		r.countCall()
	}
	if werr := r.write(rec, rec.completed()); werr != nil {
		return nil, werr
	}
	return v, err
}

// encodeOutcome fills rec with the attempt's value or error. A value that
// cannot be journaled becomes an error, returned for the run to see.
func (r *Run) encodeOutcome(ctx context.Context, rec *Record, v delegation.Value, err error) (jerr error) {
	if err == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = ctx.Err() // answered after its deadline: the evaluator counts a timeout
	}
	if err == nil {
		res, encErr := delegation.ToJSON(v)
		if encErr == nil {
			rec.Result = res
			return nil
		}
		err = fmt.Errorf("the result cannot be journaled: %w", encErr)
		jerr = err
	}
	rec.Err = err.Error()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		rec.Kind = KindTimeout
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		rec.Kind = KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		rec.Kind = KindTimeout
	default:
		rec.Kind = KindError
	}
	var de *delegation.Error
	if rec.Kind == KindError && errors.As(err, &de) {
		rec.Nested = &NestedError{Pos: de.Pos, Msg: de.Msg, Kind: de.Kind, Chain: de.Chain}
	}
	return jerr
}

func (r *Run) countCall() {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
}

// write appends rec unless replaying. A failed write stops the run: it
// could no longer be resumed.
func (r *Run) write(rec any, durable bool) error {
	if r.w == nil {
		return nil
	}
	if rr, ok := rec.(*Record); ok && r.vault != nil {
		rec = r.vault.hideRecord(rr)
	}
	if err := r.w.append(rec, durable); err != nil {
		r.fail(err)
		return err
	}
	return nil
}

// WrapJudge returns a Judge that journals every verdict of inner and, when
// resuming or replaying, answers a judgment whose id and values digest
// match a journaled one from the journal.
func (r *Run) WrapJudge(inner delegation.Judge) delegation.Judge {
	return &judger{r: r, inner: inner, seen: map[string]int{}}
}

type judger struct {
	r     *Run
	inner delegation.Judge
	seen  map[string]int // occurrences per id, guarded by r.mu
}

func (j *judger) Judge(ctx context.Context, jg *delegation.Judgment) (delegation.Verdict, error) {
	if j.r.idx != nil {
		j.r.idx.moved(ctx)
	}
	id := scopedID(ctx, jg.ID)
	j.r.mu.Lock()
	j.seen[id]++
	n := j.seen[id]
	j.r.mu.Unlock()
	vals := ValueDigest(jg.Values)
	if v, err, ok := j.answer(jg, id, n, vals); ok {
		return v, err
	}
	if j.inner == nil {
		return delegation.Verdict{}, fmt.Errorf("no judge is configured")
	}
	start := j.r.opt.Now()
	v, err := j.inner.Judge(ctx, jg)
	if ctx.Err() != nil {
		return v, err // canceled under it: not a verdict
	}
	rec := &Record{Type: TypeJudge, Time: j.r.opt.Now().UTC(), ID: id, N: n, Pos: jg.Pos.String(),
		Cond: condText(jg), Values: vals}
	if err != nil {
		rec.Err, rec.Kind = err.Error(), KindError
	} else {
		holds := v.Holds
		rec.Holds, rec.Reasoning, rec.Asked, rec.Model, rec.Rule = &holds, v.Reasoning, v.Asked, v.Model, v.Rule
		rec.TokensIn, rec.TokensOut = v.TokensIn, v.TokensOut
	}
	rec.MS = float64(time.Since(start).Microseconds()) / 1000
	if werr := j.r.write(rec, true); werr != nil {
		return delegation.Verdict{}, werr
	}
	return v, err
}

func (j *judger) answer(jg *delegation.Judgment, id string, n int, vals string) (delegation.Verdict, error, bool) {
	r := j.r
	if r.idx == nil {
		return delegation.Verdict{}, nil, false
	}
	rec := r.idx.judges[judgeKey{id, n}]
	var div *DivergenceError
	switch {
	case rec == nil && r.mode != Replaying:
		return delegation.Verdict{}, nil, false
	case rec == nil:
		div = &DivergenceError{What: "condition", ID: id, Pos: jg.Pos, Reason: "the journal holds no such judgment"}
	case rec.Values != vals:
		if r.opt.Force && r.mode == Resuming {
			return delegation.Verdict{}, nil, false
		}
		div = &DivergenceError{What: "condition", ID: id, Pos: jg.Pos,
			Reason: fmt.Sprintf("the values it mentions differ (journal sha256 %.12s..., now %.12s...)", rec.Values, vals)}
	}
	if div != nil {
		r.fail(div)
		return delegation.Verdict{}, div, true
	}
	rec = r.vault.revealRecord(rec)
	if rec.Kind != "" {
		return delegation.Verdict{}, &ReplayedError{Msg: rec.Err, Kind: rec.Kind}, true
	}
	v := delegation.Verdict{Holds: rec.Holds != nil && *rec.Holds, Reasoning: rec.Reasoning, Cached: true,
		Model: rec.Model, Rule: rec.Rule, TokensIn: rec.TokensIn, TokensOut: rec.TokensOut}
	return v, nil, true
}

func condText(jg *delegation.Judgment) string {
	if jg.Cond == nil {
		return ""
	}
	return jg.Cond.Text
}

// WrapRuntime returns a Runtime that journals the winner of each
// `parallel first` loop and, when resuming or replaying, re-runs only the
// journaled winner. Backoff sleeps are skipped while replaying, and while
// resuming as long as journaled attempts remain to be answered.
func (r *Run) WrapRuntime(inner delegation.Runtime) delegation.Runtime {
	if inner == nil {
		inner = delegation.DefaultRuntime()
	}
	return &runtime{r: r, Runtime: inner}
}

type runtime struct {
	r *Run
	delegation.Runtime
}

func (rt *runtime) First(ctx context.Context, loopID string, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	r := rt.r
	id := scopedID(ctx, loopID)
	if r.idx != nil {
		r.idx.moved(ctx)
		if rec, ok := r.idx.firsts[id]; ok && rec.Winner != nil && *rec.Winner < n {
			if w, err, ok := rt.rerunFirst(ctx, id, rec, n, fn); ok {
				return w, err
			}
		}
	}
	var mu sync.Mutex
	var order []int
	track := func(ctx context.Context, i int) (bool, error) {
		won, err := rt.iteration(ctx, i, fn)
		if err == nil {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}
		return won, err
	}
	w, err := rt.Runtime.First(ctx, loopID, n, limit, track)
	if err == nil && ctx.Err() == nil {
		win := w
		mu.Lock()
		rec := &Record{Type: TypeFirst, Time: r.opt.Now().UTC(), ID: id, Winner: &win, Order: order}
		mu.Unlock()
		if werr := r.write(rec, true); werr != nil {
			return -1, werr
		}
	}
	return w, err
}

// rerunFirst re-runs a journaled `parallel first` loop: the iterations
// that finished in the journaled run, one at a time in the order they
// finished (so what they appended to shared lists comes out in the same
// order), the winner among them; canceled iterations do not run. A journal
// that predates the order (Record.Order nil) re-runs the winner alone. ok
// is false when the loop must run live.
func (rt *runtime) rerunFirst(ctx context.Context, id string, rec *Record, n int, fn func(ctx context.Context, i int) (bool, error)) (w int, err error, ok bool) {
	w = *rec.Winner
	order := rec.Order
	if order == nil {
		if w < 0 {
			return -1, nil, false
		}
		order = []int{w}
	}
	for _, i := range order {
		if i < 0 || i >= n {
			return -1, nil, false
		}
	}
	for _, i := range order {
		won, err := fn(ctx, i)
		switch {
		case err != nil:
			return -1, err, true
		case i == w && !won:
			div := &DivergenceError{What: "parallel first", ID: id, Reason: fmt.Sprintf("the journaled winner, iteration %d, did not win", w+1)}
			rt.r.fail(div)
			return -1, div, true
		}
	}
	return w, nil, true
}

// All marks each iteration's context, so that journaled answers are handed
// out in journal order (see turn.go).
func (rt *runtime) All(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if rt.r.idx == nil {
		return rt.Runtime.All(ctx, n, limit, fn)
	}
	rt.r.idx.moved(ctx)
	return rt.Runtime.All(ctx, n, limit, func(ctx context.Context, i int) error {
		_, err := rt.iteration(ctx, i, func(ctx context.Context, i int) (bool, error) { return false, fn(ctx, i) })
		return err
	})
}

// iteration runs iteration i of a parallel loop, its context marked as
// such when answering from a journal.
func (rt *runtime) iteration(ctx context.Context, i int, fn func(ctx context.Context, i int) (bool, error)) (bool, error) {
	if rt.r.idx == nil {
		return fn(ctx, i)
	}
	ctx, t := withIter(ctx)
	defer rt.r.idx.ended(t)
	return fn(ctx, i)
}

func (rt *runtime) Sleep(ctx context.Context, d time.Duration) error {
	r := rt.r
	if r.idx != nil {
		r.idx.moved(ctx)
	}
	if r.mode == Replaying || (r.mode == Resuming && r.idx.remaining() > 0) {
		return ctx.Err()
	}
	return rt.Runtime.Sleep(ctx, d)
}

// WithTimeout keeps the inner runtime's deadline policy.
func (rt *runtime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := rt.Runtime.(delegation.Deadliner); ok {
		return dl.WithTimeout(ctx, d)
	}
	return context.WithTimeout(ctx, d)
}
