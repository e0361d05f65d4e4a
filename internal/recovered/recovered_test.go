package recovered

import (
	"errors"
	"io"
	"strings"
	"testing"
)

//go:noinline
func indexOutOfRange(xs []int, i int) int { return xs[i] }

func capture(f func()) (err *Error) {
	defer func() {
		if r := recover(); r != nil {
			err = Capture(r)
		}
	}()
	f()
	return nil
}

// A recovered panic names the function that panicked and keeps the
// stack, with that function in it; the message holds no stack.
func TestCaptureKeepsTheStack(t *testing.T) {
	err := capture(func() { indexOutOfRange(nil, 3) })
	if err == nil {
		t.Fatal("no panic captured")
	}
	if !strings.Contains(err.Origin, "indexOutOfRange") || !strings.Contains(err.Origin, "recovered/recovered_test.go:") {
		t.Errorf("origin %q does not name the panicking function and its line", err.Origin)
	}
	if !strings.Contains(err.Error(), "index out of range") || strings.Contains(err.Error(), "goroutine") {
		t.Errorf("message %q", err.Error())
	}
	if !strings.Contains(string(err.Stack), "indexOutOfRange") {
		t.Errorf("stack does not hold the panicking frame:\n%s", err.Stack)
	}
	wrapped := errors.Join(errors.New("iteration 2"), err)
	if got := StackOf(wrapped); string(got) != string(err.Stack) {
		t.Error("StackOf does not find the stack through a wrap")
	}
	if StackOf(errors.New("plain")) != nil {
		t.Error("StackOf of an error without a panic")
	}
}

// A panic with an error value unwraps to it; a panic(string) names no
// runtime frame.
func TestCaptureValues(t *testing.T) {
	err := capture(func() { panic(io.EOF) })
	if !errors.Is(err, io.EOF) {
		t.Errorf("%v does not unwrap to io.EOF", err)
	}
	err = capture(func() { panic("boom") })
	if strings.Contains(err.Origin, "runtime.") || !strings.Contains(err.Origin, "TestCaptureValues") {
		t.Errorf("origin %q", err.Origin)
	}
}
