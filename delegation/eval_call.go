package delegation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/proselang/prose/delegation/syntax"
)

// callPlan is a call's clauses, evaluated.
type callPlan struct {
	id       Path
	svc      Service
	args     *Object
	attempts int
	timeout  time.Duration
	backoff  *backoff
}

type backoff struct {
	initial, max time.Duration // max 0: no cap
	multiplier   float64
	jitter       float64
}

// evalCall runs `call TARGET` with its retries, timeout, backoff and
// on_fail clauses.
func (f *frame) evalCall(x *syntax.CallExpr) (Value, error) {
	p, err := f.planCall(x)
	if err != nil {
		return nil, err
	}
	if f.in.host.Caller == nil {
		return nil, f.errorf(x.Call, KindRuntime, "cannot call '%s': no caller is configured", p.svc.ServiceName())
	}
	var last error
	timedOut := false
	n := 0
	for n < p.attempts && !timedOut {
		n++
		if n > 1 && p.backoff != nil {
			if err := f.pause(p.id, p.backoff.delay(f.in.host.Runtime, p.id, n-1)); err != nil || f.ctx.Err() != nil {
				return nil, f.canceled(x.Call)
			}
		}
		v, err := f.attempt(x, p, n)
		if err == nil {
			return v, nil
		}
		if f.ctx.Err() != nil {
			return nil, f.canceled(x.Call)
		}
		if w := Waiting(err); w != nil {
			// a gate of a nested run waits: the whole run suspends
			return nil, &Error{Pos: f.position(x.Call), Kind: KindWaiting, Msg: w.Error(), Path: p.id, Slot: p.svc.ServiceName(), Err: err}
		}
		if u := usageOf(err); u != nil {
			// the nested spec refuses how it is used: no attempt would do
			// better, and no enclosing try may take it for a failure
			return nil, f.usageFailed(x, p, n, u)
		}
		last = err
		timedOut = p.timeout > 0 && errors.Is(err, context.DeadlineExceeded)
		if _, same := errors.AsType[*NotRetriedError](err); same {
			break // another attempt would send the same arguments
		}
	}
	if x.OnFail != nil && x.OnFail.Use != nil {
		v, err := f.eval(x.OnFail.Use)
		if err != nil || x.Output == "" {
			return v, err
		}
		return outputOf(v, x.Output), nil
	}
	return nil, f.callFailed(x, p, n, last, timedOut)
}

// outputOf is the value of a fallback of a call to a node whose one
// output is out, by the return rule the node's own answer goes through:
// an object holding the key out gives that key's value ({data: X} is X);
// any other value is the output itself.
func outputOf(v Value, out string) Value {
	if o, ok := v.(*Object); ok {
		if x, ok := o.Get(out); ok {
			return x
		}
	}
	return v
}

// pause waits out a backoff of d before another attempt of call id.
func (f *frame) pause(id Path, d time.Duration) error {
	f.th.giveBack()
	if p, ok := f.in.host.Runtime.(Pauser); ok {
		return p.Pause(f.ctx, id, d)
	}
	return f.in.host.Runtime.Sleep(f.ctx, d)
}

// attempt performs attempt n and records its start and end.
func (f *frame) attempt(x *syntax.CallExpr, p *callPlan, n int) (Value, error) {
	rt := f.in.host.Runtime
	pos := f.position(x.Call)
	req := &CallRequest{Path: p.id, Service: p.svc, Args: p.args, Attempt: n, Pos: pos, Timeout: p.timeout, Host: &f.in.host}
	if f.in.host.Recorder != nil {
		req.Exchanged = func(x Exchange) {
			f.record(&Event{Kind: EventCallModel, Path: p.id, Pos: pos, Slot: p.svc.ServiceName(), Attempt: n, Exchange: &x})
		}
	}
	start := rt.Now()
	f.record(&Event{Kind: EventCallStart, Time: start, Path: p.id, Pos: pos, Slot: p.svc.ServiceName(), Attempt: n, Args: p.args})
	ctx, cancel := f.ctx, context.CancelFunc(func() {})
	if p.timeout > 0 {
		if d, ok := rt.(Deadliner); ok {
			ctx, cancel = d.WithTimeout(f.ctx, p.timeout)
		} else {
			ctx, cancel = context.WithTimeout(f.ctx, p.timeout)
		}
	}
	f.th.giveBack()
	v, err := f.in.host.Caller.Call(ctx, req)
	v = normalize(v)
	if err == nil {
		v = adopt(f.th, v, 0)
	}
	if p.timeout > 0 && f.ctx.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		switch {
		case err == nil: // answered too late: the deadline had passed
			err = ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
		}
	}
	cancel()
	end := rt.Now()
	f.record(&Event{Kind: EventCallEnd, Time: end, Path: p.id, Pos: pos, Slot: p.svc.ServiceName(), Attempt: n,
		Result: v, Err: err, Duration: end.Sub(start)})
	return v, err
}

// callFailed builds the error of a call that used up its attempts.
func (f *frame) callFailed(x *syntax.CallExpr, p *callPlan, n int, last error, timedOut bool) error {
	word := "attempts"
	if n == 1 {
		word = "attempt"
	}
	name := p.svc.ServiceName()
	e := &Error{Pos: f.position(x.Call), Kind: KindCall, Slot: name, Attempts: n, Err: last, Path: p.id}
	var inner *Error
	switch {
	case timedOut:
		e.Msg = fmt.Sprintf("call '%s' failed after %d %s: timed out after %s", name, n, word, p.timeout)
	case errors.As(last, &inner):
		e.Msg = fmt.Sprintf("call '%s' failed after %d %s: %s", name, n, word, inner.Msg)
		e.Chain = append([]string{inner.Pos.String()}, inner.Chain...)
	default:
		e.Msg = fmt.Sprintf("call '%s' failed after %d %s: %s", name, n, word, oneLine(last.Error()))
	}
	f.record(&Event{Kind: EventError, Pos: e.Pos, Path: p.id, Slot: name, Attempt: n, Err: e})
	return e
}

// usageOf is the usage error (KindUsage) in err's chain, or nil.
func usageOf(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindUsage {
		return e
	}
	return nil
}

// usageFailed builds the error of a call whose service refused how it is
// used (a nested spec's `throw usage`): a usage error again, at this call,
// with the inner position first in its chain.
func (f *frame) usageFailed(x *syntax.CallExpr, p *callPlan, n int, inner *Error) *Error {
	name := p.svc.ServiceName()
	e := &Error{Pos: f.position(x.Call), Kind: KindUsage, Slot: name, Attempts: n, Err: inner, Path: p.id, Value: inner.Value,
		Msg:   fmt.Sprintf("call '%s': %s", name, inner.Msg),
		Chain: append([]string{inner.Pos.String()}, inner.Chain...)}
	f.record(&Event{Kind: EventError, Pos: e.Pos, Path: p.id, Slot: name, Attempt: n, Err: e})
	return e
}

// oneLine trims a service's error text to something that fits a message.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return s
}

// planCall evaluates the call's target, arguments and clauses.
func (f *frame) planCall(x *syntax.CallExpr) (*callPlan, error) {
	tv, err := f.eval(x.Target)
	if err != nil && x.Session != nil {
		return nil, f.sessionUnbound(x)
	}
	if err != nil {
		return nil, err
	}
	svc, ok := tv.(Service)
	if !ok {
		return nil, f.errorf(x.Target.Pos(), KindRuntime, "cannot call %s: it is %s, not a service", exprText(x.Target), TypeName(tv))
	}
	p := &callPlan{id: f.id(x.Call), svc: svc, attempts: 1}
	args, err := f.evalObject(x.Args)
	if err != nil {
		return nil, err
	}
	// A service sees its arguments as they were when the call started,
	// even if a list passed in grows afterwards.
	if p.args, err = f.snapshotArgs(x.Call, args); err != nil {
		return nil, err
	}
	if x.Retries != nil {
		r, err := f.count(x.Retries, "retries", false)
		if err != nil {
			return nil, err
		}
		p.attempts = r + 1
	}
	if x.Timeout != nil {
		if p.timeout, err = f.duration(x.Timeout, "timeout"); err != nil {
			return nil, err
		}
		if p.timeout <= 0 {
			return nil, f.errorf(x.Timeout.Pos(), KindRuntime, "timeout must be positive, got %s", p.timeout)
		}
	}
	if x.Backoff != nil {
		if p.backoff, err = f.planBackoff(x.Backoff); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// duration evaluates a duration: a duration value or a number of seconds.
func (f *frame) duration(x syntax.Expr, what string) (time.Duration, error) {
	v, err := f.eval(x)
	if err != nil {
		return 0, err
	}
	return f.toDuration(x, v, what)
}

func (f *frame) toDuration(x syntax.Expr, v Value, what string) (time.Duration, error) {
	if d, ok := ToDuration(v); ok {
		return d, nil
	}
	return 0, f.errorf(x.Pos(), KindRuntime, "%s must be a duration (500ms, 30s) or a number of seconds, got %s %s", what, TypeName(v), Text(v))
}

// planBackoff evaluates `backoff {initial, max, multiplier, jitter}`.
func (f *frame) planBackoff(o *syntax.ObjectLit) (*backoff, error) {
	b := &backoff{multiplier: 2}
	seen := false
	for _, fd := range o.Fields {
		v, err := f.eval(fd.Value)
		if err != nil {
			return nil, err
		}
		switch fd.Key {
		case "initial":
			b.initial, err = f.toDuration(fd.Value, v, "backoff initial")
			seen = true
		case "max":
			b.max, err = f.toDuration(fd.Value, v, "backoff max")
		case "multiplier", "jitter":
			x, ok := toFloat(v)
			if !ok || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) || (fd.Key == "jitter" && x > 1) {
				return nil, f.errorf(fd.Value.Pos(), KindRuntime, "backoff %s must be a number%s, got %s", fd.Key, map[bool]string{true: " between 0 and 1", false: " >= 0"}[fd.Key == "jitter"], Text(v))
			}
			if fd.Key == "jitter" {
				b.jitter = x
			} else {
				b.multiplier = x
			}
		default:
			return nil, f.errorf(fd.KeyPos, KindRuntime, "unknown backoff setting '%s' (use initial, max, multiplier, jitter)", fd.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	if !seen {
		return nil, f.errorf(o.Lbrace, KindRuntime, "backoff needs an initial delay")
	}
	return b, nil
}

// delay is the wait before attempt k+1 (k >= 1): min(initial *
// multiplier^(k-1), max), plus up to jitter times that, drawn from
// rt.Jitter of "ID#k".
func (b *backoff) delay(rt Runtime, id Path, k int) time.Duration {
	d := float64(b.initial) * math.Pow(b.multiplier, float64(k-1))
	if b.max > 0 && d > float64(b.max) {
		d = float64(b.max)
	}
	if b.jitter > 0 {
		d += d * b.jitter * rt.Jitter(fmt.Sprintf("%s#%d", id, k))
	}
	if d > float64(math.MaxInt64) || math.IsNaN(d) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d)
}

// clone copies the lists and objects in v, deeply; values nested deeper
// than MaxDepth (a list that contains itself) are an error.
func clone(v Value) (Value, error) { return cloneDepth(v, 0) }

func cloneDepth(v Value, depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	switch v := v.(type) {
	case *List:
		elems := v.Elems()
		for i, e := range elems {
			c, err := cloneDepth(e, depth+1)
			if err != nil {
				return nil, err
			}
			elems[i] = c
		}
		return NewList(elems...), nil
	case *Object:
		o := NewObject()
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			c, err := cloneDepth(e, depth+1)
			if err != nil {
				return nil, err
			}
			o.Set(k, c)
		}
		return o, nil
	}
	return v, nil
}
