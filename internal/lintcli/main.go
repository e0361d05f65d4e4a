// Package lintcli is the part of prose's command line that the program
// prose serves by itself: prose lint, prose version and prose --version,
// the commands an editor or a pre-commit hook runs on every save, for
// which start-up is the cost. It links the loader and the checks and
// nothing of running specs (no interpreter, model client, MCP SDK, HTTP
// server, OpenTelemetry or Temporal engine), whose package initialisations
// and pages touched at start cost every command that links them several
// times a Go hello world. Every other command prose hands, whole, to the
// program prose-full (the whole command line, package cli), found beside
// prose, else on PATH; prose-full hands the Temporal engine's commands to
// prose-temporal in turn. go install ./cmd/... installs all three.
//
// It parses its command line itself, without cobra (whose flag package
// links package net, and with it the C resolver: a dynamically linked
// program, about a millisecond more at every start), and serves only the
// command lines it reads in full: help, an unknown flag or a missing
// value go to prose-full, whose cobra command line says what it says of
// them. The lint itself (Run) is the one package cli's prose lint runs.
package lintcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/version"
)

// Exit codes.
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitUsage     = 2
	ExitInterrupt = 130
)

// ExitError carries an exit code through cobra's error return. A nil Err
// exits with Code silently (the command already printed what it had to).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErrorf is an error that exits 2.
func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// streams are the standard files a command uses.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// Serves reports whether args (prose's, without the program name) are a
// command this package serves: --version (-v) or version alone, or lint
// with paths and no flags but --format and --allow-empty. Anything else
// (help, another flag, a flag without its value, no path) is prose-full's,
// whose command line (cobra) says what it says of it.
func Serves(args []string) bool {
	_, _, ok := parse(args)
	return ok
}

// parse is what Serves accepts: the lint options and paths of a lint, or
// none for the version.
func parse(args []string) (o *Options, paths []string, ok bool) {
	if len(args) == 0 {
		return nil, nil, false
	}
	switch args[0] {
	case "--version", "-v", "version":
		return nil, nil, len(args) == 1
	case "lint":
	default:
		return nil, nil, false
	}
	o = &Options{Format: "text"}
	flags := true
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case !flags || a == "-" || !strings.HasPrefix(a, "-"):
			paths = append(paths, a)
		case a == "--":
			flags = false
		case a == "--allow-empty":
			o.AllowEmpty = true
		case strings.HasPrefix(a, "--format="):
			o.Format = strings.TrimPrefix(a, "--format=")
		case a == "--format" && i+1 < len(args):
			i++
			o.Format = args[i]
		default:
			return nil, nil, false
		}
	}
	return o, paths, len(paths) > 0
}

// Main runs the command of args, which Serves accepts, and returns the
// exit code, printing and exiting as prose-full does for the same args.
// A lint cancels its context on SIGINT/SIGTERM (exit 130); a second
// signal ends the process.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	o, paths, ok := parse(args)
	if !ok {
		fmt.Fprintf(errw, "prose: %s is not served here\n", commandName(args))
		return ExitUsage
	}
	out, errw, flush := RedactStreams(args, out, errw)
	defer flush()
	if o == nil {
		if _, err := fmt.Fprintf(out, "prose %s\n", version.String()); err != nil {
			fmt.Fprintf(errw, "prose: %v\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	if oneFile(paths) {
		// One file is one worker (lint.Options.Workers): a second
		// processor would only start threads to wait on it, a tenth of
		// the CPU of a lint of one file.
		defer OneProcessor()()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	o.Summary = IsTerminal(out)
	o.Color = ColorEnabled(out, os.Getenv)
	err := Run(ctx, in, out, errw, *o, paths)
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintf(errw, "prose: %v\n", ee.Err)
		}
		return ee.Code
	case ctx.Err() != nil:
		fmt.Fprintln(errw, "prose: interrupted")
		return ExitInterrupt
	}
	fmt.Fprintf(errw, "prose: %v\n", err)
	return ExitFailure
}

// oneFile reports whether paths are one regular file (not standard input,
// a directory or a named pipe).
func oneFile(paths []string) bool {
	if len(paths) != 1 || paths[0] == "-" {
		return false
	}
	st, err := os.Stat(paths[0])
	return err == nil && st.Mode().IsRegular()
}

// RedactStreams wraps stdout and stderr in the one redactor (package
// redact) that also scrubs journals, traces and model errors: the values
// of secret-named environment variables (OPENAI_API_KEY, ...), the
// credentials of URLs in the environment (OPENAI_BASE_URL) or given to
// --base-url, each also as JSON escapes it. Credential-shaped text
// (sk-..., Bearer ...) is left to the journal and trace: stdout is the
// program's result. A model that echoes its key, or a server that echoes
// the Basic auth header made of a base URL's user and password, prints
// [redacted] instead. flush writes what the writers still hold back (an
// unfinished last line).
func RedactStreams(args []string, out, errw io.Writer) (io.Writer, io.Writer, func()) {
	// The model key is withheld however short it is (EnvSecrets takes
	// values of 8 bytes and more).
	// So is a secret-named input (--input api_token=...), see
	// redact.InputSecrets.
	// So is a secret written inline in an exec: binding (--slot
	// "x=exec:env API_TOKEN=... svc.sh"), see redact.CommandSecrets.
	more := append(redact.FlagURLSecrets(args, "base-url"), os.Getenv("OPENAI_API_KEY"))
	more = append(more, redact.Values(redact.FlagSlotSecrets(args))...)
	r := redact.ForEnv(nil, append(more, redact.Values(redact.FlagInputSecrets(args))...)...)
	ow, ew := r.Writer(out), r.Writer(errw)
	return ow, ew, func() { ow.Flush(); ew.Flush() }
}
