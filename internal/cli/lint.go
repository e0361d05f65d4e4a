package cli

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/internal/lintcli"
	"github.com/proselang/prose/lint"
)

// lintOptions are the flags of `prose lint` (lintcli.Options).
type lintOptions lintcli.Options

func newLintCmd(s streams) *cobra.Command {
	opts := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [--format text|json|github|sarif] PATH...",
		Short: "Check spec files for structure errors and Delegation mistakes",
		Long: `Lint checks OpenProse spec files without running them.

Each PATH is a spec file, a directory walked for *.prose.md files
(directories whose name starts with a dot are skipped; entries that are
not regular files, such as named pipes, are skipped with a warning), or -
for one spec read from standard input (named <stdin>; the sibling files
it calls are looked for in the current directory). A subdirectory
that cannot be read is reported and the walk goes on. For every file,
lint reports the loader's structure findings (front matter, sections,
slots, config, inputs, Shape, the Delegation fence), syntax errors in the
Delegation code, and the static checks of the Delegation: undefined
names, call targets that are not slots, unbounded loops, outer names
written from parallel bodies, outputs never returned, config never used,
and more. Every finding has a stable code such as check/undefined-name.

Output formats (--format):
  text    FILE:LINE:COL: SEVERITY: MESSAGE [CODE], sorted (default); on a
          terminal, a last line counts them: 3 errors, 2 warnings in 12 files
  json    an array of {file, line, col, severity, code, message}
  github  GitHub Actions annotations (::error file=...,line=...,col=...::...)
  sarif   SARIF 2.1.0 for GitHub code scanning

Exit status: 0 when no finding is an error (warnings alone pass), 1 when
any is or when the paths hold no spec file (--allow-empty: 0), 2 when a
path cannot be read or the flags are wrong, 130 when interrupted.`,
		Example: `  # Lint one spec and a whole library
  prose lint ratchet.prose.md patterns/

  # A spec that is not in a file yet
  generate-spec | prose lint -

  # Annotate a pull request from a GitHub Actions step
  prose lint --format github .

  # Upload findings to GitHub code scanning
  prose lint --format sarif . > prose.sarif`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("lint: no path given; run 'prose lint --help' for usage")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Summary = IsTerminal(s.out)
			opts.Color = ColorEnabled(s.out, os.Getenv)
			return runLint(cmd.Context(), s, opts, args)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", string(lint.Text),
		"output `FORMAT`: "+formatNames())
	cmd.Flags().BoolVar(&opts.AllowEmpty, "allow-empty", false, "exit 0 when the paths hold no spec file; without it that is exit 1")
	return cmd
}

func formatNames() string {
	var names []string
	for _, f := range lint.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// runLint lints args and prints the findings (see lintcli.Run).
func runLint(ctx context.Context, s streams, opts *lintOptions, args []string) error {
	err := lintcli.Run(ctx, s.in, s.out, s.err, lintcli.Options(*opts), args)
	var ee *lintcli.ExitError
	if errors.As(err, &ee) {
		return &exitError{Code: ee.Code, Err: ee.Err}
	}
	return err
}
