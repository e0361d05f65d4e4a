package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// A gate (`ask_user QUESTION`, `gate QUESTION`) asks a person and goes on
// with the answer. The evaluator makes it a call of path PATH, attempt 1,
// whose service is a *Gate and whose one argument is `question`, so the
// journal answers it on a resume and a replay as any call; the run's
// Gater (Host.Gates) decides how it is asked: a terminal asks in place, a
// journaled run suspends (the Gater returns a *WaitingError and the run
// ends with an error of KindWaiting, which no try catches), a Temporal
// workflow waits for a signal. See semantics.md, "Gates".

// KindWaiting is the Error kind of a run suspended at a gate that has no
// answer yet. It is not catchable: the run ends, journaled, and a resume
// after the answer goes on from the gate.
const KindWaiting = "waiting"

// ErrGateTimeout is what a Gater returns when a gate's timeout passed
// with no answer: `on_fail use VALUE` then gives the gate's value, else
// the run fails with a catchable call error. It is a
// context.DeadlineExceeded, so a journal records it as a timeout and a
// resume or replay that answers the gate from there takes the fallback
// again.
var ErrGateTimeout = fmt.Errorf("no answer came within the gate's timeout (%w)", context.DeadlineExceeded)

// GateState is what earlier sessions of a run recorded of one gate (a
// journal keeps it): when it was first asked, and its latest answer. A
// Gater reads it to answer, or time out, across sessions.
type GateState struct {
	Path     Path
	Pos      string
	Kind     string
	Question json.RawMessage
	Asked    time.Time
	Deadline time.Time
	Timeout  string
	// Answer is the latest answer's JSON (nil: none); Answered its time.
	Answer   json.RawMessage
	Answered time.Time
	// Done: a later "end" recorded the gate's value (a resume used the
	// answer, or the timeout's fallback was taken).
	Done bool
}

// Gate is the service of one gate's call.
type Gate struct {
	Kind     string // syntax.GateAskUser or syntax.GateGate
	Question Value  // a string for ask_user; any value for gate
	Timeout  time.Duration
}

// ServiceName is the gate's keyword.
func (g *Gate) ServiceName() string { return g.Kind }

// Call asks the run's Gater (req.Host.Gates).
func (g *Gate) Call(ctx context.Context, req *CallRequest) (Value, error) {
	if req.Host == nil || req.Host.Gates == nil {
		return nil, fmt.Errorf("%s: this run has no one to ask (it runs without a journal and without a terminal)", g.Kind)
	}
	return req.Host.Gates.Gate(ctx, req, g)
}

// Gater answers gates. Gate returns the answer, a *WaitingError when the
// run must suspend until someone answers, ErrGateTimeout (possibly
// wrapped) when the timeout passed unanswered, or another error.
type Gater interface {
	Gate(ctx context.Context, req *CallRequest, g *Gate) (Value, error)
}

// WaitingError is a gate with no answer yet.
type WaitingError struct {
	Path     Path
	Pos      diag.Position
	Kind     string
	Question Value
	// Asked is when the gate was first asked (zero: unknown); Deadline
	// when its timeout passes (zero: it has none).
	Asked, Deadline time.Time
}

func (e *WaitingError) Error() string {
	return fmt.Sprintf("%s %s waits for an answer: %s", e.Kind, e.Path.Key(), Text(e.Question))
}

// Waiting returns the *WaitingError in err's chain, or nil.
func Waiting(err error) *WaitingError {
	var w *WaitingError
	if errors.As(err, &w) {
		return w
	}
	return nil
}

// evalGate asks the gate's question through the run's caller.
func (f *frame) evalGate(x *syntax.GateExpr) (Value, error) {
	q, err := f.eval(x.Question)
	if err != nil {
		return nil, err
	}
	if _, ok := q.(string); x.Kind == syntax.GateAskUser && !ok {
		return nil, f.errorf(x.Question.Pos(), KindRuntime, "ask_user asks a string, not %s: write ask_user \"QUESTION\" (gate {...} asks for a JSON value)", TypeName(q))
	}
	g := &Gate{Kind: x.Kind, Question: q}
	if x.Timeout != nil {
		if g.Timeout, err = f.duration(x.Timeout, "timeout"); err != nil {
			return nil, err
		}
		if g.Timeout <= 0 {
			return nil, f.errorf(x.Timeout.Pos(), KindRuntime, "timeout must be positive, got %s", g.Timeout)
		}
	}
	if f.in.host.Caller == nil {
		return nil, f.errorf(x.Gate, KindRuntime, "cannot ask %s: no caller is configured", x.Kind)
	}
	args := NewObject()
	args.Set("question", q)
	if args, err = f.snapshotArgs(x.Gate, args); err != nil {
		return nil, err
	}
	id, pos, rt := f.id(x.Gate), f.position(x.Gate), f.in.host.Runtime
	req := &CallRequest{Path: id, Service: g, Args: args, Attempt: 1, Pos: pos, Host: &f.in.host}
	start := rt.Now()
	f.record(&Event{Kind: "call.start", Time: start, Path: id, Pos: pos, Slot: x.Kind, Attempt: 1, Args: args})
	f.th.giveBack()
	v, err := f.in.host.Caller.Call(f.ctx, req)
	v = normalize(v)
	if w := Waiting(err); w != nil && f.ctx.Err() == nil {
		return nil, &Error{Pos: pos, Kind: KindWaiting, Msg: w.Error(), Path: id, Slot: x.Kind, Err: w}
	}
	end := rt.Now()
	f.record(&Event{Kind: "call.end", Time: end, Path: id, Pos: pos, Slot: x.Kind, Attempt: 1, Result: v, Err: err, Duration: end.Sub(start)})
	switch {
	case err == nil:
		v = adopt(f.th, v, 0)
		return v, nil
	case f.ctx.Err() != nil:
		return nil, f.canceled(x.Gate)
	case errors.Is(err, context.DeadlineExceeded) && x.OnFail != nil && x.OnFail.Use != nil:
		return f.eval(x.OnFail.Use)
	}
	msg := fmt.Sprintf("%s failed: %s", x.Kind, oneLine(err.Error()))
	if errors.Is(err, context.DeadlineExceeded) {
		msg = fmt.Sprintf("%s got no answer within %s (on_fail use VALUE gives a fallback)", x.Kind, g.Timeout)
	}
	e := &Error{Pos: pos, Kind: KindCall, Slot: x.Kind, Attempts: 1, Err: err, Path: id, Msg: msg}
	f.record(&Event{Kind: "error", Pos: e.Pos, Path: id, Slot: x.Kind, Attempt: 1, Err: e})
	return nil, e
}
