package cli

import "context"

// untilDone runs read, which may block where no context reaches it (a
// read from a terminal, a pipe or a named pipe that nothing writes to,
// or the open of such a pipe), and returns what it returns, or ctx's
// error as soon as ctx is done: Ctrl-C and SIGTERM end prose while it
// waits for input. A read given up on is left to the process's end,
// which comes next.
func untilDone[T any](ctx context.Context, read func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
