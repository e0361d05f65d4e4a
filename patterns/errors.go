package patterns

// The errors of binding and preparing a run, in one place: a
// *UsageError (how the run was asked for) and a *SpecError (the spec
// itself) before anything runs; package run gives each its run.Code.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
)

// isCancel reports whether err ended a run by cancellation (Ctrl-C), as
// opposed to a failure, which may itself wrap a call's timeout.
func isCancel(err error) bool {
	var de *delegation.Error
	if errors.As(err, &de) {
		return de.Kind == delegation.KindCanceled
	}
	return errors.Is(err, context.Canceled)
}

// UsageError is a problem with how a run was asked for: bad flags, unknown
// or missing names, an invalid spec. The command exits 2 on it.
type UsageError struct {
	Problems []string
}

func (e *UsageError) Error() string { return strings.Join(e.Problems, "\n") }

func usagef(format string, args ...any) *UsageError {
	return &UsageError{Problems: []string{fmt.Sprintf(format, args...)}}
}

// SpecError is an invalid spec: its error-level diagnostics (exit 2).
type SpecError struct {
	Diags diag.List
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("%s: the spec has errors and cannot run:\n%s", e.Diags[0].File, e.Diags.String())
}
