package lintcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
)

// FullProgram is the program that serves every command (package cli
// without the Temporal engine), to which prose hands the commands this
// package does not serve.
const FullProgram = "prose-full"

// findFull is the path of prose-full: beside the running executable, else
// on PATH.
func findFull() (string, error) {
	name := FullProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// HandOff runs args with prose-full and returns its exit code, or fails
// (exit 1) saying how to install it when there is none. On Unix the
// process becomes prose-full (the command's signals, exit status and
// death are then its own) and HandOff returns only when that fails;
// elsewhere prose-full runs as a child with these standard files, and the
// first interrupt is passed on.
func HandOff(args []string, in io.Reader, out, errw io.Writer) int {
	path, err := findFull()
	if err != nil {
		dir := "the prose executable's directory"
		if exe, err := os.Executable(); err == nil {
			dir = filepath.Dir(exe)
		}
		fmt.Fprintf(errw, "prose: %s is served by %s, found neither in %s nor on PATH.\n"+
			"Install it beside prose with: go install github.com/proselang/prose/cmd/...@latest\n"+
			"(or, in a checkout of prose: go install ./cmd/...; both install prose, %s and prose-temporal)\n",
			commandName(args), FullProgram, dir, FullProgram)
		return ExitFailure
	}
	if execReplaces {
		err := replace(path, args)
		fmt.Fprintf(errw, "prose: starting %s: %v\n", path, err)
		return ExitFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = in, out, errw
	if err := c.Start(); err != nil {
		fmt.Fprintf(errw, "prose: starting %s: %v\n", path, err)
		return ExitFailure
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = c.Process.Signal(os.Interrupt)
		case <-done:
		}
	}()
	err = c.Wait()
	close(done)
	var xe *exec.ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &xe) && xe.ExitCode() >= 0:
		return xe.ExitCode()
	case ctx.Err() != nil:
		return ExitInterrupt
	}
	fmt.Fprintf(errw, "prose: %s: %v\n", path, err)
	return ExitFailure
}

// commandName is "prose run", "prose", ...: the command args name, for
// the message of a failed hand-off.
func commandName(args []string) string {
	for _, a := range args {
		if len(a) > 0 && a[0] != '-' {
			return "prose " + a
		}
	}
	return "prose"
}
