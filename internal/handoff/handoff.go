// Package handoff hands a command, whole, to a sibling program: the
// program prose hands what it does not serve to prose-full, which hands
// the Temporal engine's commands to prose-temporal (see the README's
// Install). A sibling is found beside the running executable, else on
// PATH. On Unix the process becomes the sibling (Exec): the command's
// signals, exit status and death are then the sibling's own, with nothing
// of the first program left around it. Elsewhere, and for a command run in
// process, the sibling runs as a child (Run).
package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ErrNotFound is Find's error for a program found neither beside the
// running executable nor on PATH.
var ErrNotFound = errors.New("program not found")

// Find is the path of program: beside the running executable, else on
// PATH.
func Find(program string) (string, error) {
	if p, err := Beside(program); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath(exeName(program)); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s: %w", program, ErrNotFound)
}

// Beside is the path of program beside the running executable: the same
// installation (go install ./cmd/...), where Find also looks on PATH.
func Beside(program string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), exeName(program))
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", program, ErrNotFound)
}

func exeName(program string) string {
	if runtime.GOOS == "windows" {
		return program + ".exe"
	}
	return program
}

// Dir is the directory of the running executable, for messages.
func Dir() string {
	exe, err := os.Executable()
	if err != nil {
		return "the directory of this program"
	}
	return filepath.Dir(exe)
}

// Run runs path with args as a child, its standard files those given and
// the environment this process's with env added (KEY=VALUE), and returns
// its exit code. The first cancellation of ctx (Ctrl-C or SIGTERM) is
// passed on as an interrupt; a terminal's Ctrl-C reaches it directly too
// (the same process group), which it takes as one. A child that cannot
// start or dies by a signal is 1 (130 when ctx was cancelled), with a
// message on errw.
func Run(ctx context.Context, path string, args, env []string, in io.Reader, out, errw io.Writer) int {
	c := exec.Command(path, args...)
	c.Env = append(os.Environ(), env...)
	c.Stdin, c.Stdout, c.Stderr = in, out, errw
	if err := c.Start(); err != nil {
		fmt.Fprintf(errw, "prose: starting %s: %v\n", path, err)
		return 1
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = c.Process.Signal(os.Interrupt)
		case <-done:
		}
	}()
	err := c.Wait()
	close(done)
	var xe *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &xe) && xe.ExitCode() >= 0:
		return xe.ExitCode()
	case ctx.Err() != nil:
		return 130
	}
	fmt.Fprintf(errw, "prose: %s: %v\n", path, err)
	return 1
}
