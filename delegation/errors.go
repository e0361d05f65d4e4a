package delegation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proselang/prose/diag"
)

// Error kinds. A `try` catches KindCall, KindThrow and KindRuntime; the
// others always end the run.
const (
	KindCall     = "call"     // a call failed after its attempts (on_fail abort)
	KindThrow    = "throw"    // a `throw` statement
	KindRuntime  = "runtime"  // a data error: bad operand, index out of range, calling a non-service
	KindJudge    = "judge"    // a natural-language condition could not be decided
	KindLimit    = "limit"    // a run limit was passed (Error.Limit says which)
	KindCanceled = "canceled" // the run's context was canceled or timed out
	// KindUsage is a `throw usage`: the spec refuses how it is used (a
	// config or input no run of it can work with). It is a mistake of the
	// spec that uses it, not a failed attempt: no try catches it, and a
	// call of a nested spec that raises it fails at once with it (no
	// further attempt, no on_fail fallback), through every enclosing call.
	KindUsage = "usage"
)

// Limit names the run limit a KindLimit error passed, so that a caller
// can say which option to raise without reading the message.
type Limit string

// Limits a KindLimit error names.
const (
	LimitSteps     Limit = "steps"      // more statements than Host.MaxSteps
	LimitValueSize Limit = "value-size" // a value past Host.MaxValueBytes
	// LimitBlockDepth: more named block invocations inside one another
	// than MaxBlockDepth.
	LimitBlockDepth Limit = "block-depth"
)

// Error is a run-time error of a delegation. Pos is the .md position of the
// statement or expression that failed (for a call, its `call` keyword).
//
// When the error happened inside a nested run (a service that runs another
// spec and failed with an *Error), Msg includes the inner message and Chain
// lists the inner positions, outermost first.
type Error struct {
	Pos  diag.Position
	Msg  string
	Kind string
	// Path is the path of the call, judgment or statement that raised
	// the error (zero when none: a cancellation).
	Path Path
	// Slot and Attempts describe a failed call (KindCall).
	Slot     string
	Attempts int
	Chain    []string
	// Limit is the limit a KindLimit error passed.
	Limit Limit
	// Value is the thrown value (KindThrow).
	Value Value
	// Err is the underlying cause: the last attempt's error of a call, the
	// judge's error, or the context error of a cancellation.
	Err error
}

// Error prints FILE:LINE:COL: MESSAGE (for a throw, "uncaught throw:
// MESSAGE"), then one "\tat POSITION" line per nested position.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.File != "" || e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	switch e.Kind {
	case KindThrow:
		b.WriteString("uncaught throw: ")
	case KindUsage:
		b.WriteString("usage error: ")
	}
	b.WriteString(e.Msg)
	for _, c := range e.Chain {
		b.WriteString("\n\tat ")
		b.WriteString(c)
	}
	return b.String()
}

// Unwrap returns the cause, so errors.Is(err, context.Canceled) holds for a
// canceled run.
func (e *Error) Unwrap() error { return e.Err }

// Catchable reports whether `try` catches the error: failed calls, throws
// and data errors; never cancellation, exceeded limits or judge failures.
func (e *Error) Catchable() bool {
	switch e.Kind {
	case KindCall, KindThrow, KindRuntime:
		return true
	case KindJudge:
		// A judge that answered but could not be read (a model's verdict
		// that stayed unreadable after its retries) may be caught; a
		// missing judge or model configuration may not.
		var c interface{ Catchable() bool }
		return errors.As(e.Err, &c) && c.Catchable()
	}
	return false
}

// Object is the value a `catch as NAME` binds: {message, kind, slot,
// attempts}, plus value for a throw. slot and attempts are null when the
// error is not a failed call.
func (e *Error) Object() *Object {
	o := NewObject()
	o.Set("message", e.Msg)
	o.Set("kind", e.Kind)
	if e.Kind == KindCall {
		o.Set("slot", e.Slot)
		o.Set("attempts", int64(e.Attempts))
	} else {
		o.Set("slot", nil)
		o.Set("attempts", nil)
	}
	if e.Kind == KindThrow || e.Kind == KindUsage {
		o.Set("value", e.Value)
	}
	// A service failing with a named error (a render's declared error)
	// gives its name as `error`.
	var named interface{ ErrorName() string }
	if errors.As(e.Err, &named) {
		o.Set("error", named.ErrorName())
	}
	return o
}

// isCancel reports whether err is a context cancellation or deadline.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// limitf builds (and records) the KindLimit error of limit l at p.
func (f *frame) limitf(p diag.Pos, l Limit, format string, args ...any) *Error {
	e := &Error{Pos: f.position(p), Kind: KindLimit, Limit: l, Msg: fmt.Sprintf(format, args...), Path: f.id(p)}
	f.record(&Event{Kind: EventError, Path: e.Path, Pos: e.Pos, Err: e})
	return e
}
