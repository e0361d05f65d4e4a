package patterns

import (
	"context"
	"errors"
	"sync"

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

// maxFailedCalls bounds the memory of FailedCalls in long runs.
const maxFailedCalls = 4096

// FailedCalls is a delegation.Recorder that remembers the call id of each
// runtime error raised at a call ("error" events carrying an id), so that
// the error ending a run can say which iteration of its loops failed:
// "L33/2/3" is the call at line 33 in iteration 2 of the outer loop and 3
// of the inner one. It is safe for concurrent use.
type FailedCalls struct {
	mu  sync.Mutex
	ids map[*delegation.Error]string
}

// Record implements delegation.Recorder.
func (f *FailedCalls) Record(ev *delegation.Event) {
	de, ok := ev.Err.(*delegation.Error)
	if ev.Kind != "error" || ev.ID == "" || !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil || len(f.ids) >= maxFailedCalls {
		f.ids = map[*delegation.Error]string{}
	}
	f.ids[de] = ev.ID
}

// CallID returns the call id recorded for err (or the *delegation.Error
// it wraps), "" when none was.
func (f *FailedCalls) CallID(err error) string {
	var de *delegation.Error
	if !errors.As(err, &de) {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[de]
}
