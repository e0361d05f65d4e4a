// Command prose loads OpenProse pattern specs (*.prose.md), checks them and
// runs their Delegation pseudocode with slots bound to real services.
//
// The command tree is built by New; Main runs it and returns the exit code:
// 0 success, 1 a finding or runtime error, 2 bad usage or an invalid spec,
// 130 interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitInterrupt = 130
)

// streams are the standard files a command uses; tests substitute buffers.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// exitError carries an exit code through cobra's error return. A nil err
// exits with code silently (the command already printed what it had to).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is an error that exits 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// Main runs prose with args and returns the exit code. It cancels the
// command's context on SIGINT/SIGTERM.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := New(streams{in: in, out: out, err: errw})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(errw, "prose: %v\n", ee.err)
		}
		return ee.code
	}
	if ctx.Err() != nil {
		fmt.Fprintln(errw, "prose: interrupted")
		return exitInterrupt
	}
	// cobra's own errors: unknown command or flag, wrong arguments.
	fmt.Fprintf(errw, "prose: %v\nRun 'prose --help' for usage.\n", err)
	return exitUsage
}

// New builds the command tree.
func New(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "prose",
		Short: "Load, check and run OpenProse pattern specs",
		Long: `prose loads OpenProse pattern specs (*.prose.md), checks them, and runs
their Delegation pseudocode with a real interpreter. Slots are bound to
services: programs (exec:CMD), language models (llm), or other specs.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(
		newRunCmd(s),
		newLintCmd(s),
		newShowCmd(s),
		newListCmd(s),
		newResumeCmd(s),
		newReplayCmd(s),
		newRunsCmd(s),
	)
	return root
}
