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
// The commands here are the ones package cli builds into its tree too
// (NewLintCmd, NewVersionCmd), with the same error reporting (Report), so
// that prose and prose-full print and exit the same for them.
package lintcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/redact"
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
// command this package serves: lint or version, or --version (-v) alone.
func Serves(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "lint", "version":
		return true
	case "--version", "-v":
		return len(args) == 1
	}
	return false
}

// Main runs the commands this package serves with args and returns the
// exit code, as package cli's Main does for the same args. It cancels the
// command's context on SIGINT/SIGTERM; a second one ends the process.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	out, errw, flush := RedactStreams(args, out, errw)
	defer flush()
	root := &cobra.Command{Use: "prose", SilenceUsage: true, SilenceErrors: true}
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	root.AddCommand(NewLintCmd(in, out, errw), NewVersionCmd(out))
	SetVersion(root)
	root.SetArgs(args)
	return Report(ctx, root, args, root.ExecuteContext(ctx), errw)
}

// Report prints err, what root returned for args, on errw and returns the
// exit code: an ExitError's code (its error, when it has one, printed
// after "prose: "), 130 when ctx was cancelled, else 2 for cobra's own
// errors (an unknown command or flag, wrong arguments), with a hint.
func Report(ctx context.Context, root *cobra.Command, args []string, err error, errw io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(errw, "prose: %v\n", ee.Err)
		}
		return ee.Code
	}
	if ctx.Err() != nil {
		fmt.Fprintln(errw, "prose: interrupted")
		return ExitInterrupt
	}
	fmt.Fprintf(errw, "prose: %s%s\nRun '%s --help' for usage.\n", flagValueError(err), flagSuggestion(root, args, err), commandPath(root, args))
	return ExitUsage
}

// strconvSyntax is the strconv detail pflag appends to a bad flag value
// (compiled on first use: most runs never need it).
var strconvSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`: strconv\.Parse(Int|Uint|Float|Bool): parsing "[^"]*": (invalid syntax|value out of range)$`)
})

// flagValueError rewrites pflag's message about a bad flag value in words:
// `invalid argument "x" for "--max-parallel" flag: want a whole number`.
func flagValueError(err error) string {
	return strconvSyntax().ReplaceAllStringFunc(err.Error(), func(m string) string {
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
