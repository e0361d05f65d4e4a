package patterns

import (
	"context"
	"errors"

	"github.com/proselang/prose/delegation"
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
