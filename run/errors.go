package run

import (
	"context"
	"errors"
	"strconv"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
)

// Code says why a run gave no value. A program decides what to do about
// an error (an exit status, advice to print) by its Code, never by its
// text; the error itself keeps the details (errors.As finds the
// *bind.UsageError, *callgraph.SpecError, *delegation.Error, ... it
// wraps).
type Code int

// Codes. The zero Code is no error.
const (
	// CodeFailed: the spec failed at run time (a call after its
	// attempts, an uncaught throw, a data error, a judge that could not
	// decide), or something else went wrong.
	CodeFailed Code = iota + 1
	// CodeUsage: the run cannot start as asked (bad or missing bindings,
	// a withheld value not given again, a bad option); nothing ran.
	CodeUsage
	// CodeInvalidSpec: the spec has error diagnostics; nothing ran.
	CodeInvalidSpec
	// CodeCanceled: the run was interrupted (its context was canceled).
	CodeCanceled
	// CodeStepBudget: the run passed Limits.MaxSteps.
	CodeStepBudget
	// CodeValueSize: a value passed Limits.MaxValueBytes.
	CodeValueSize
	// CodeSpecChanged: a resume or replay found its spec changed or gone.
	CodeSpecChanged
	// CodeDiverged: a resume or replay no longer matches its journal.
	CodeDiverged
	// CodeJournal: the journal cannot be opened or written.
	CodeJournal
)

// codeNames are kept in journals (a final record's err_code, which a
// replay compares): a name, once given, keeps its meaning.
var codeNames = [...]string{"", "failed", "usage", "invalid-spec", "canceled", "step-budget", "value-size", "spec-changed", "diverged", "journal"}

// String returns the code's name ("usage").
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "code(" + strconv.Itoa(int(c)) + ")"
}

// ParseCode is the Code named name (String's inverse); false for a name
// this prose does not know (a newer one's) and for "".
func ParseCode(name string) (Code, bool) {
	for c, n := range codeNames {
		if n != "" && n == name {
			return Code(c), true
		}
	}
	return 0, false
}

// Error is every error Prepare, Start, Wait, Resume, Replay and Local.Run
// return: its Code, and the error it classifies (whose text it prints).
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the Code of err: that of the *Error in its chain, else
// the one its kind of error has (an engine's errors are classified the
// same way); 0 for nil.
func CodeOf(err error) Code {
	if err == nil {
		return 0
	}
	var re *Error
	if errors.As(err, &re) {
		return re.Code
	}
	return classify(err)
}

// errorCode is the name of err's Code: what a journal's and a trace's
// final record keep, and a replay compares its error by.
func errorCode(err error) string { return CodeOf(err).String() }

// wrapErr gives err its Code, once.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	var re *Error
	if errors.As(err, &re) {
		return err
	}
	return &Error{Code: classify(err), Err: err}
}

// classify is the one place an error's kind becomes a Code.
func classify(err error) Code {
	var (
		ue  *UsageError
		pue *bind.UsageError
		se  *callgraph.SpecError
		sc  *journal.SpecChangedError
		dv  *DivergedError
		je  *JournalError
		de  *delegation.Error
	)
	switch {
	case errors.As(err, &ue), errors.As(err, &pue):
		return CodeUsage
	case errors.As(err, &sc):
		return CodeSpecChanged
	case errors.As(err, &se):
		return CodeInvalidSpec
	case errors.As(err, &dv):
		return CodeDiverged
	case errors.As(err, &je):
		return CodeJournal
	case errors.As(err, &de):
		switch {
		case de.Kind == delegation.KindCanceled:
			return CodeCanceled
		case de.Kind == delegation.KindLimit && de.Limit == delegation.LimitSteps:
			return CodeStepBudget
		case de.Kind == delegation.KindLimit && de.Limit == delegation.LimitValueSize:
			return CodeValueSize
		}
		return CodeFailed
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	}
	return CodeFailed
}
