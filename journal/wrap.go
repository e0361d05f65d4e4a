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
	args := c.r.argsDigest(req.Args)
	if v, err, ok := c.r.answerCall(ctx, req, args); ok {
		return v, err
	}
	return c.r.liveCall(ctx, c.inner, req, req.Path, args)
}

// answerCall answers req from the journal when it can, by its path
// (CallRequest.Path) and attempt alone: which calls ended first in the
// journaled run does not matter, since each parallel group's outcome is
// journaled too (group.go). ok is false when the attempt must run live.
func (r *Run) answerCall(ctx context.Context, req *delegation.CallRequest, args string) (v delegation.Value, err error, ok bool) {
	if r.idx == nil {
		return nil, nil, false
	}
	id := req.Path
	k := callKey{id, req.Attempt}
	rp, lerr := r.idx.call(k)
	if lerr != nil {
		r.fail(lerr)
		return nil, lerr, true
	}
	defer rp.done()
	var rec *Record
	if rp != nil {
		rec = rp.Rec
	}
	if rec != nil && string(rp.dig.args) != args {
		if !r.opt.Force || r.mode != Resuming {
			div := &DivergenceError{What: "call", ID: id, Attempt: req.Attempt, Pos: req.Pos,
				Reason: fmt.Sprintf("its arguments differ (journal sha256 %.12s..., now %.12s...)", rp.dig.args, args)}
			return nil, r.diverge(div), true
		}
		rec = nil // forced: it runs live and its new record supersedes the old one
	}
	if r.Err() != nil {
		// Stopped because another call diverged: canceled, not failed
		// with that call's divergence, which the run reports once.
		return nil, context.Canceled, true
	}
	switch {
	case rec != nil:
		r.countCall()
		r.mu.Lock()
		r.answered++
		if r.mode != Replaying { // a replay answers every call from the journal
			if r.fromJournal == nil {
				r.fromJournal = map[callKey]bool{}
			}
			r.fromJournal[k] = true
		}
		r.mu.Unlock()
		v, err = r.decodeOutcome(rec)
		return v, err, true
	case ctx.Err() != nil:
		return nil, ctx.Err(), true // canceled, as in the journaled run
	case r.mode != Replaying:
		return nil, nil, false // nothing journaled moves the run: this call runs live
	}
	reason := "the journal holds no such call"
	switch started, canceled := r.idx.history(k); {
	case canceled:
		reason = "the journaled run canceled this call, and nothing cancels it in the replay"
	case started:
		reason = "the journaled run stopped while this call was running (prose resume runs it live)"
	}
	div := &DivergenceError{What: "call", ID: id, Attempt: req.Attempt, Pos: req.Pos, Reason: reason}
	return nil, r.diverge(div), true
}

// decodeOutcome rebuilds an attempt's value or error from its record.
func (r *Run) decodeOutcome(rec *Record) (delegation.Value, error) {
	rec = r.vault.revealRecord(rec)
	if rec.Kind != "" {
		if n := rec.Nested; n != nil {
			e := &delegation.Error{Pos: n.Pos, Msg: n.Msg, Kind: n.Kind, Chain: n.Chain}
			if n.Catchable {
				e.Err = &ReplayedError{Msg: n.Msg, Kind: KindError, CanCatch: true}
			}
			return nil, e
		}
		return nil, &ReplayedError{Msg: rec.Err, Kind: rec.Kind, CanCatch: rec.Catchable}
	}
	v, err := decodeResult(rec.Result)
	if err != nil {
		err = fmt.Errorf("journal %s: call %s: corrupt result: %w", r.Path(), rec.ID, err)
		r.fail(err)
		return nil, err
	}
	return v, nil
}

// liveCall runs req on inner and journals its "end" record after; the
// end of a completed attempt is on disk before it returns. A "start"
// record is written only when the attempt's service starts a process
// group (spawnRecorded), holding the group: a resume ends it when the
// attempt has no "end". An attempt without one is run again by a resume
// whether it started or not, so nothing else needs a record before the
// call (FORMAT.md, "Records").
func (r *Run) liveCall(ctx context.Context, inner delegation.Caller, req *delegation.CallRequest, id delegation.Path, args string) (delegation.Value, error) {
	slot := ""
	if req.Service != nil {
		slot = req.Service.ServiceName()
	}
	pos := req.Pos.String()
	if req.Timeout > 0 {
		// The evaluator's attempt context has no deadline (see
		// WithTimeout): the attempt's own starts now, with the service.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	start := r.opt.Now()
	v, err := inner.Call(ctx, r.spawnRecorded(req, id, slot, pos, args))
	if w := delegation.Waiting(err); w != nil && ctx.Err() == nil {
		return nil, r.gateWaits(req, slot, w) // no "end": a resume asks again
	}
	if err == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		v, err = nil, ctx.Err() // answered after its deadline: a timeout
	}
	end := r.opt.Now()
	rec := &Record{Type: TypeEnd, Time: end.UTC(), ID: id, Pos: pos, Attempt: req.Attempt, Slot: slot, Args: args,
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

// spawnRecorded is req with a Spawned hook that journals each process
// group the attempt's service starts, so a resume after prose was killed
// can end what is left of it (see endLeftovers): the first in the
// attempt's "start" record, any later one in a "proc" record.
func (r *Run) spawnRecorded(req *delegation.CallRequest, id delegation.Path, slot, pos, args string) *delegation.CallRequest {
	if r.w == nil {
		return req
	}
	c := *req
	prev := req.Spawned
	var once sync.Mutex
	started := false
	c.Spawned = func(pgid int, ident string) {
		once.Lock()
		first := !started
		started = true
		once.Unlock()
		rec := &Record{Type: TypeProc, Time: r.opt.Now().UTC(), ID: id, Attempt: req.Attempt, Slot: slot, PGID: pgid, Proc: ident}
		if first {
			rec.Type, rec.Pos, rec.Args = TypeStart, pos, args
		}
		r.write(rec, false)
		if prev != nil {
			prev(pgid, ident)
		}
	}
	return &c
}

// encodeOutcome fills rec with the attempt's value or error. A value that
// cannot be journaled becomes an error, returned for the run to see.
func (r *Run) encodeOutcome(ctx context.Context, rec *Record, v delegation.Value, err error) (jerr error) {
	if err == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = ctx.Err() // answered after its deadline: the evaluator counts a timeout
	}
	if err == nil {
		encErr := r.encodeResult(rec, v)
		if encErr == nil {
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
		rec.Nested = &NestedError{Pos: de.Pos, Msg: de.Msg, Kind: de.Kind, Chain: de.Chain, Catchable: de.Catchable()}
	}
	rec.Catchable = rec.Kind == KindError && catchable(err)
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
	return &judger{r: r, inner: inner, seen: map[delegation.Path]int{}}
}

type judger struct {
	r     *Run
	inner delegation.Judge
	seen  map[delegation.Path]int // occurrences per path, guarded by r.mu
}

// memoKey is what a model judge caches a verdict by (the spec's file, the
// condition, the values, fail-closed). When resuming, a judgment the
// journal holds no record of, but whose verdict the run's judge had
// cached before it was stopped (index.memo), is answered as that cache
// would have answered it, so a resume asks the model nothing the run had
// asked.
func memoKey(file, cond, values string, failClosed bool) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%v", file, cond, values, failClosed)
}

// posFile is the file of a FILE:LINE:COL position.
func posFile(pos string) string {
	for range 2 {
		if i := strings.LastIndexByte(pos, ':'); i >= 0 {
			pos = pos[:i]
		}
	}
	return pos
}

func (j *judger) Judge(ctx context.Context, jg *delegation.Judgment) (delegation.Verdict, error) {
	id := jg.Path
	j.r.mu.Lock()
	j.seen[id]++
	n := j.seen[id]
	j.r.mu.Unlock()
	vals := ValueDigest(jg.Values)
	if v, err, ok := j.answer(ctx, jg, id, n, vals); ok {
		return v, err
	}
	if j.r.idx != nil && !jg.IsChoice() {
		if e, ok := j.r.idx.memo[memoKey(jg.Pos.File, condText(jg), vals, jg.FailClosed)]; ok {
			rec, err := j.r.idx.load(e)
			if err != nil {
				j.r.fail(err)
				return delegation.Verdict{}, err
			}
			return j.remembered(jg, id, n, vals, rec)
		}
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
		Cond: condText(jg), Values: vals, FailClosed: jg.FailClosed}
	if err != nil {
		rec.Err, rec.Kind, rec.Catchable = err.Error(), KindError, catchable(err)
	} else {
		rec.Holds, rec.Pick = verdictAnswer(jg, v)
		rec.Reasoning, rec.Asked, rec.Model, rec.Rule = v.Reasoning, v.Asked, v.Model, v.Rule
		rec.TokensIn, rec.TokensOut = v.TokensIn, v.TokensOut
	}
	rec.MS = float64(j.r.opt.Now().Sub(start).Microseconds()) / 1000
	if werr := j.r.write(rec, true); werr != nil {
		return delegation.Verdict{}, werr
	}
	return v, err
}

// remembered answers jg with the verdict of an earlier session's record
// of the same condition and values (see judger.memo), as a cached
// verdict, and journals it under jg's own path.
func (j *judger) remembered(jg *delegation.Judgment, id delegation.Path, n int, vals string, prev *Record) (delegation.Verdict, error) {
	prev = j.r.vault.revealRecord(prev)
	v := delegation.Verdict{Holds: prev.Holds != nil && *prev.Holds, Reasoning: prev.Reasoning, Cached: true, Model: prev.Model}
	holds := v.Holds
	rec := &Record{Type: TypeJudge, Time: j.r.opt.Now().UTC(), ID: id, N: n, Pos: jg.Pos.String(),
		Cond: condText(jg), Values: vals, FailClosed: jg.FailClosed, Holds: &holds, Reasoning: v.Reasoning, Model: v.Model}
	if werr := j.r.write(rec, true); werr != nil {
		return delegation.Verdict{}, werr
	}
	return v, nil
}

// catchable reports whether err says it may be caught by `try` (an
// unreadable model verdict does).
func catchable(err error) bool {
	var c interface{ Catchable() bool }
	return errors.As(err, &c) && c.Catchable()
}

func (j *judger) answer(ctx context.Context, jg *delegation.Judgment, id delegation.Path, n int, vals string) (delegation.Verdict, error, bool) {
	r := j.r
	if r.idx == nil {
		return delegation.Verdict{}, nil, false
	}
	rp, lerr := r.idx.judge(judgeKey{id, n})
	if lerr != nil {
		r.fail(lerr)
		return delegation.Verdict{}, lerr, true
	}
	defer rp.done()
	var rec *Record
	if rp != nil {
		rec = rp.Rec
	}
	if rec != nil && string(rp.dig.values) != vals {
		if !r.opt.Force || r.mode != Resuming {
			div := &DivergenceError{What: "condition", ID: id, Pos: jg.Pos,
				Reason: fmt.Sprintf("the values it mentions differ (journal sha256 %.12s..., now %.12s...)", rp.dig.values, vals)}
			return delegation.Verdict{}, r.diverge(div), true
		}
		rec = nil
	}
	if r.Err() != nil {
		return delegation.Verdict{}, context.Canceled, true // another diverged (see answerCall)
	}
	switch {
	case rec == nil && ctx.Err() != nil:
		return delegation.Verdict{}, ctx.Err(), true
	case rec == nil && r.mode != Replaying:
		return delegation.Verdict{}, nil, false
	case rec == nil:
		div := &DivergenceError{What: "condition", ID: id, Pos: jg.Pos, Reason: "the journal holds no such judgment"}
		return delegation.Verdict{}, r.diverge(div), true
	}
	rec = r.vault.revealRecord(rec)
	if rec.Kind != "" {
		return delegation.Verdict{}, &ReplayedError{Msg: rec.Err, Kind: rec.Kind, CanCatch: rec.Catchable}, true
	}
	v := delegation.Verdict{Holds: rec.Holds != nil && *rec.Holds, Pick: rec.Pick, Reasoning: rec.Reasoning, Cached: true,
		Model: rec.Model, Rule: rec.Rule, TokensIn: rec.TokensIn, TokensOut: rec.TokensOut}
	return v, nil, true
}

// verdictAnswer is what a judge record keeps of v's answer: whether the
// condition holds, or for a choice the label picked (its holds is nil).
// The evaluator checks a replayed pick against the choice's labels as
// it checks a fresh one, so an edited choice never runs a stale label.
func verdictAnswer(jg *delegation.Judgment, v delegation.Verdict) (*bool, string) {
	if jg != nil && jg.IsChoice() {
		return nil, v.Pick
	}
	holds := v.Holds
	return &holds, ""
}

func condText(jg *delegation.Judgment) string {
	if jg.Cond == nil {
		return ""
	}
	return jg.Cond.Text
}

// WrapRuntime returns a Runtime that journals how each parallel group
// ended and, when resuming or replaying, answers a journaled group from
// its record (group.go). Backoff sleeps are skipped while replaying, and
// while resuming as long as journaled attempts remain to be answered.
func (r *Run) WrapRuntime(inner delegation.Runtime) delegation.Runtime {
	if inner == nil {
		inner = delegation.DefaultRuntime()
	}
	return &runtime{r: r, Runtime: inner, seen: map[delegation.Path]int{}}
}

type runtime struct {
	r *Run
	delegation.Runtime
	seen map[delegation.Path]int // group occurrences per path, guarded by r.mu
}

// Sleep skips waits in a replay.
func (rt *runtime) Sleep(ctx context.Context, d time.Duration) error {
	if rt.r.mode == Replaying {
		return ctx.Err()
	}
	return rt.Runtime.Sleep(ctx, d)
}

// Pause waits out the backoff before another attempt of call id: not at
// all in a replay, nor in a resume while journaled answers remain.
func (rt *runtime) Pause(ctx context.Context, id delegation.Path, d time.Duration) error {
	r := rt.r
	if r.mode == Replaying || (r.mode == Resuming && r.remaining() > 0) {
		return ctx.Err()
	}
	return rt.Runtime.Sleep(ctx, d)
}

// WithTimeout sets no deadline on the evaluator's attempt context: a
// journaled timeout is answered as one, and an attempt that runs live gets
// its deadline when its service starts (liveCall).
func (rt *runtime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}
