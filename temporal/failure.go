package temporal

import (
	"errors"
	"strings"

	tsdk "go.temporal.io/sdk/temporal"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/run"
)

// How a run's failure reaches its starter.
//
// The workflow fails with a non-retryable ApplicationError of type
// "prose.KIND" (KIND a delegation error kind, or usage, spec, runtime,
// missing-program, no-service), the run's error text as its message and
// one detail, a failureDetail: the run.Code by name (names keep their
// meaning, see run.Code) and, when the evaluator failed, what its
// *delegation.Error holds that travels as JSON. The starter (runError)
// turns it back into a *run.Error of that Code around a *RunError around
// the rebuilt *delegation.Error, so that a program decides about a run on
// Temporal as about a local one: by run.CodeOf, and by the error's
// structure, never its text.
//
// A failure without the detail (from a worker of an older prose) is
// given the Code its type implies: usage and spec are CodeUsage and
// CodeInvalidSpec, canceled is CodeCanceled, every other kind
// CodeFailed (a limit's type does not say which limit).

// failureDetail is the detail of a run's ApplicationError.
type failureDetail struct {
	Code string      `json:"code"` // run.Code's name ("step-budget")
	Eval *evalDetail `json:"eval,omitempty"`
}

// evalDetail is a *delegation.Error without its cause and thrown value
// (the message already says what they were).
type evalDetail struct {
	Kind     string           `json:"kind"`
	Msg      string           `json:"msg"`
	Pos      diag.Position    `json:"pos"`
	Path     delegation.Path  `json:"path"`
	Slot     string           `json:"slot,omitempty"`
	Attempts int              `json:"attempts,omitempty"`
	Chain    []string         `json:"chain,omitempty"`
	Limit    delegation.Limit `json:"limit,omitempty"`
}

// failRun is the workflow's failure for err, of type errType.
func failRun(errType string, err error) error {
	d := failureDetail{Code: run.CodeOf(err).String()}
	var de *delegation.Error
	if errors.As(err, &de) {
		d.Eval = &evalDetail{Kind: de.Kind, Msg: de.Msg, Pos: de.Pos, Path: de.Path, Slot: de.Slot,
			Attempts: de.Attempts, Chain: de.Chain, Limit: de.Limit}
	}
	return tsdk.NewNonRetryableApplicationError(err.Error(), errType, nil, d)
}

// runError turns the error a workflow's Get returned into the run's
// error: a *run.Error of the run's Code around a *RunError, without the
// SDK's "workflow execution error (type: ..., workflowID: ...)" around
// it. An error that is not the run's (the connection's) is returned as
// it is.
func runError(err error) error {
	var app *tsdk.ApplicationError
	if errors.As(err, &app) {
		kind := strings.TrimPrefix(app.Type(), "prose.")
		re := &RunError{Kind: kind, Msg: app.Message()}
		code := kindCode(kind)
		var d failureDetail
		if app.HasDetails() && app.Details(&d) == nil {
			if c, ok := run.ParseCode(d.Code); ok {
				code = c
			}
			if e := d.Eval; e != nil {
				re.Err = &delegation.Error{Kind: e.Kind, Msg: e.Msg, Pos: e.Pos, Path: e.Path, Slot: e.Slot,
					Attempts: e.Attempts, Chain: e.Chain, Limit: e.Limit}
			}
		}
		return &run.Error{Code: code, Err: re}
	}
	var ce *tsdk.CanceledError
	if errors.As(err, &ce) {
		return &run.Error{Code: run.CodeCanceled, Err: &RunError{Kind: delegation.KindCanceled, Msg: "the run was cancelled"}}
	}
	var te *tsdk.TerminatedError
	if errors.As(err, &te) {
		return &run.Error{Code: run.CodeCanceled, Err: &RunError{Kind: delegation.KindCanceled, Msg: "the run was terminated"}}
	}
	var we *tsdk.WorkflowExecutionError
	if errors.As(err, &we) {
		// the run ended some other way (its workflow timed out)
		msg := "the run ended without a result"
		if cause := errors.Unwrap(we); cause != nil {
			msg += ": " + cause.Error()
		}
		return &run.Error{Code: run.CodeFailed, Err: &RunError{Kind: delegation.KindRuntime, Msg: msg}}
	}
	return err
}

// kindCode is the Code of a failure of type "prose."+kind that carries
// none.
func kindCode(kind string) run.Code {
	switch kind {
	case "usage":
		return run.CodeUsage
	case "spec":
		return run.CodeInvalidSpec
	case delegation.KindCanceled:
		return run.CodeCanceled
	}
	return run.CodeFailed
}
