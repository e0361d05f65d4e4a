// Package cli is the command line of the programs prose and
// prose-temporal: it loads OpenProse pattern specs (*.prose.md), checks
// them and runs their Delegation pseudocode with slots bound to real
// services.
//
// The command tree is built by New; Main runs it and returns the exit code:
// 0 success, 1 a finding or runtime error, 2 bad usage or an invalid spec,
// 130 interrupted.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/internal/handoff"
	"github.com/proselang/prose/internal/lintcli"
	"github.com/proselang/prose/internal/procgroup"
	"github.com/proselang/prose/internal/temporalport"
)

// Run is the program: it runs Main on the process's arguments and
// standard files and exits with its code. l is the Temporal engine of the
// program, nil for prose (see engine.go).
func Run(l temporalport.Link) {
	linked = l
	// the hand-off's mark is for this process alone: the programs it
	// runs may start a prose of their own
	os.Unsetenv(lintcli.HandedOffEnv)
	// A command that needs the Temporal engine, in a prose built without
	// it, becomes prose-temporal's (see engine.go) before anything starts.
	execTemporal(os.Args[1:])
	// A process started as the watchdog of another prose runs as one and
	// exits here; otherwise the programs a run starts get a watchdog that
	// ends their process groups when prose dies by any signal: the small
	// program prose beside this one when there is one that speaks this
	// prose's protocol with it (it starts in a fraction of this
	// program's time), else this program again.
	procgroup.Init()
	if lean, err := handoff.Beside("prose"); err == nil {
		procgroup.WatchdogProgram(lean)
	}
	// Descendants of the run's programs that outlive them (a daemon that
	// left its process group) are handed to prose rather than init, and
	// ended before it exits: none outlives the command.
	procgroup.Subreap()
	code := Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	procgroup.EndOrphans()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitWaiting   = 3 // the run waits at a gate: prose answer, then prose resume
	exitInterrupt = 130
)

// streams are the standard files a command uses; tests substitute buffers.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// exitError carries an exit code through cobra's error return (a nil
// Err exits with Code silently): the lean program's type, so that the
// two programs' commands fail alike.
type exitError = lintcli.ExitError

// usageErrorf is an error that exits 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{Code: exitUsage, Err: fmt.Errorf(format, args...)}
}

// Main runs prose with args and returns the exit code. It cancels the
// command's context on SIGINT/SIGTERM; a second one ends prose at once
// (the signal's default action), whatever the command is waiting for.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	if linked != nil {
		// the hand-off's mark is for this process alone: the programs it
		// runs may start a prose of their own
		os.Unsetenv(handedOffEnv)
	} else if needsTemporal(args) {
		return handOff(ctx, args, in, out, errw)
	}
	out, errw, flush := redactStreams(args, out, errw)
	defer flush()
	root := New(streams{in: in, out: out, err: errw})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(errw, "prose: %v\n", ee.Err)
		}
		return ee.Code
	}
	if ctx.Err() != nil {
		fmt.Fprintln(errw, "prose: interrupted")
		return exitInterrupt
	}
	// cobra's own errors: unknown command or flag, wrong arguments.
	fmt.Fprintf(errw, "prose: %s%s\nRun '%s --help' for usage.\n", flagValueError(err), flagSuggestion(root, args, err), commandPath(root, args))
	return exitUsage
}

// strconvSyntax is the strconv detail pflag appends to a bad flag value.
var strconvSyntax = regexp.MustCompile(`: strconv\.Parse(Int|Uint|Float|Bool): parsing "[^"]*": (invalid syntax|value out of range)$`)

// flagValueError rewrites pflag's message about a bad flag value in words:
// `invalid argument "x" for "--max-parallel" flag: want a whole number`.
func flagValueError(err error) string {
	return strconvSyntax.ReplaceAllStringFunc(err.Error(), func(m string) string {
		switch {
		case strings.Contains(m, "ParseBool"):
			return ": want true or false"
		case strings.Contains(m, "out of range"):
			return ": out of range"
		case strings.Contains(m, "ParseFloat"):
			return ": want a number"
		}
		return ": want a whole number"
	})
}

// commandPath is the command args name ("prose run"), for usage hints.
func commandPath(root *cobra.Command, args []string) string {
	if cmd, _, err := root.Find(args); err == nil && cmd != nil {
		return cmd.CommandPath()
	}
	return root.CommandPath()
}

// flagSuggestion is " (did you mean --slot?)" for an unknown flag close to
// one the command has, else "".
func flagSuggestion(root *cobra.Command, args []string, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	cmd, _, ferr := root.Find(args)
	if ferr != nil || cmd == nil {
		return ""
	}
	var names, prefixed []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		names = append(names, f.Name)
		if strings.HasPrefix(f.Name, name) {
			prefixed = append(prefixed, f.Name)
		}
	})
	best := didyoumean.Closest(name, names, 2)
	if best == "" && len(prefixed) > 0 {
		best = prefixed[0] // a flag cut short
	}
	if best == "" {
		return ""
	}
	return " (did you mean --" + best + "?)"
}

// oneFile is the Args check of a command taking one spec file: a clearer
// message than cobra's "accepts 1 arg(s)".
func oneFile(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usageErrorf("%s needs a spec file (FILE.prose.md); run '%s --help' for usage", cmd.Name(), cmd.CommandPath())
	case len(args) > 1:
		hint := ""
		if strings.Contains(args[1], "=") && cmd.Name() == "run" {
			hint = fmt.Sprintf("; bind slots with --slot %s, inputs with --input", args[1])
		}
		return usageErrorf("%s takes one spec file, got %d arguments: %s%s", cmd.Name(), len(args), strings.Join(args, " "), hint)
	}
	return nil
}

// New builds the command tree.
func New(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "prose",
		Short: "Load, check and run OpenProse pattern specs",
		Long: `prose loads OpenProse specs (*.prose.md), checks them, and runs them with
a real interpreter: a pattern's ### Delegation pseudocode, and the functions
and responsibilities of Contract Markdown (their ### Execution block, their
inline nodes, or a model rendering their contract). Slots and nodes are bound
to services: programs (exec:CMD), language models (llm), or other specs.
'prose test' runs kind: test files against their subjects and checks what
they expect.

Exit status: 0 success, 1 a lint finding or a runtime error, 2 bad usage
or an invalid spec, 130 interrupted.`,
		Example: `  # See the built-in patterns, then read one as typed JSON
  prose list
  prose show std/patterns/ratchet.prose.md

  # Check your own specs
  prose lint specs/

  # Run one with its slots bound to your programs
  prose run specs/review.prose.md --slot reviewer=exec:./review.py \
    --input draft="$(cat draft.md)" --config rounds=2`,
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
		newAnswerCmd(s),
		newReplayCmd(s),
		newRunsCmd(s),
		newWorkerCmd(s),
		newResultCmd(s),
		newVersionCmd(s),
		newNewCmd(s),
		newTestCmd(s),
		newMCPCmd(s),
		newServeCmd(s), newTriggerCmd(s), newUICmd(s),
		newTemporalCmd(s),
	)
	root.AddCommand(worldCommands(s)...)
	setVersion(root)
	addCompletions(root)
	return root
}
