// Package recovered keeps what a recovered panic knows. prose turns a
// panic in a parallel iteration, a parser or an MCP tool into an error of
// that one thing rather than a crash; Capture, called in the deferred
// function that recovered, keeps the panic's value and the stack it was
// raised on, so that the bug can be found: the message names the function
// that panicked, and the whole stack is there for whoever asks for it
// (prose prints it when PROSE_DEBUG is set), never in front of a user.
//
// Entry points: Capture, Error.
package recovered

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Error is a recovered panic.
type Error struct {
	// Value is what was passed to panic.
	Value any
	// Origin is the function that panicked and its file:line, "" when
	// it cannot be told.
	Origin string
	// Stack is the goroutine's stack when it was recovered (as
	// runtime/debug.Stack prints it), the panicking frames included.
	Stack []byte
}

// Capture is the *Error of the panic value v. Call it from the deferred
// function that recovered v, so that the stack is still the panic's.
func Capture(v any) *Error {
	return &Error{Value: v, Origin: origin(), Stack: debug.Stack()}
}

func (e *Error) Error() string {
	if e.Origin == "" {
		return fmt.Sprintf("panic: %v", e.Value)
	}
	return fmt.Sprintf("panic: %v (in %s)", e.Value, e.Origin)
}

// Unwrap is the panic's value when it is an error.
func (e *Error) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// StackOf is the stack of the first recovered panic in err's chain, or
// nil.
func StackOf(err error) []byte {
	var re *Error
	if errors.As(err, &re) {
		return re.Stack
	}
	return nil
}

// origin names the frame that panicked: the first one below
// runtime.gopanic that is not the runtime's own (an index out of range
// panics in runtime.goPanicIndex, called by the culprit).
func origin() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s (%s:%d)", shortFunc(f.Function), shortFile(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// shortFunc drops the module path: "delegation.(*evaluator).call".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

// shortFile is the file's name with its directory: "delegation/eval.go".
func shortFile(file string) string {
	parts := strings.Split(file, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}
