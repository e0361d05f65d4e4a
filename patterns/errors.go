package patterns

import (
	"context"
	"errors"

	"github.com/proselang/prose/delegation"
)

// errDeadline marks an attempt stopped by its call's timeout.
var errDeadline = context.DeadlineExceeded

// isCancel reports whether err ended a run by cancellation (Ctrl-C), as
// opposed to a failure, which may itself wrap a call's timeout.
func isCancel(err error) bool {
	var de *delegation.Error
	if errors.As(err, &de) {
		return de.Kind == delegation.KindCanceled
	}
	return errors.Is(err, context.Canceled)
}
