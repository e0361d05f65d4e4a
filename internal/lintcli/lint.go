package lintcli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/world/graph"
)

// lintOptions are the flags of `prose lint`.
type lintOptions struct {
	format string
	// summary ends text output with a count of the findings; set when
	// stdout is a terminal.
	summary bool
	// color colours severities; set on a terminal unless NO_COLOR is set.
	color bool
	// allowEmpty passes paths that hold no spec (else exit 1).
	allowEmpty bool
}

// NewLintCmd is `prose lint`, reading a - path from in and writing to
// out and errw.
func NewLintCmd(in io.Reader, out, errw io.Writer) *cobra.Command {
	s := streams{in: in, out: out, err: errw}
	opts := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [--format text|json|github|sarif] PATH...",
		Short: "Check spec files for structure errors and Delegation mistakes",
		Long: `Lint checks OpenProse spec files without running them.

Each PATH is a spec file, a directory walked for *.prose.md files
(directories whose name starts with a dot are skipped; entries that are
not regular files, such as named pipes, are skipped with a warning), or -
for one spec read from standard input (named <stdin>). A subdirectory
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
			opts.summary = IsTerminal(s.out)
			opts.color = ColorEnabled(s.out, os.Getenv)
			return runLint(cmd.Context(), s, opts, args)
		},
	}
	cmd.Flags().StringVar(&opts.format, "format", string(lint.Text),
		"output `FORMAT`: "+formatNames())
	cmd.Flags().BoolVar(&opts.allowEmpty, "allow-empty", false, "exit 0 when the paths hold no spec file; without it that is exit 1")
	return cmd
}

func formatNames() string {
	var names []string
	for _, f := range lint.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// runLint lints args and prints the findings; findings in files that
// could be read are printed even when another path cannot be read. The
// count line is printed only on a terminal, in text format: piped output
// (and the JSON, GitHub and SARIF formats) holds the findings alone.
func runLint(ctx context.Context, s streams, opts *lintOptions, args []string) error {
	format, err := lint.ParseFormat(opts.format)
	if err != nil {
		return usageErrorf("lint: %v", err)
	}
	res, pathErr := lint.PathsContext(ctx, args, lint.Options{Resolve: lintResolver, Stdin: s.in})
	if ctx.Err() != nil {
		return ctx.Err() // Main says "interrupted" and exits 130
	}
	lintWiring(res, args)
	if err := writeLint(s.out, format, res, opts.color); err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("lint: %w", err)}
	}
	if opts.summary && format == lint.Text {
		fmt.Fprintln(s.out, res.Summary())
	}
	if pathErr != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("lint: %w", pathErr)}
	}
	if res.Files == 0 {
		// CI must not pass on nothing (decided): a folder with no spec
		// is a failure unless asked for.
		if !opts.allowEmpty {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("lint: no %s files in %s (--allow-empty passes on none)", lint.Suffix, strings.Join(args, " "))}
		}
		fmt.Fprintf(s.err, "prose lint: no %s files in %s\n", lint.Suffix, strings.Join(args, " "))
	}
	if res.HasErrors() {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

// lintWiring adds to res the wiring findings (graph/*) of each directory
// argument on disk, as `prose graph` reports them: a lint step fails on a
// world that cannot start. A file argument on disk is not a project: it
// gets the identity warning alone (graph.LintFile).
func lintWiring(res *lint.Result, args []string) {
	seen := map[string]bool{}
	for _, d := range res.Diags {
		seen[d.String()] = true
	}
	added := false
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			continue
		}
		var ds diag.List
		if st.IsDir() {
			if ds, err = graph.Lint(arg); err != nil {
				continue // the files' own lint reports what cannot be read
			}
		} else {
			ds = graph.LintFile(arg)
		}
		for _, d := range ds {
			if !seen[d.String()] {
				seen[d.String()] = true
				res.Diags = append(res.Diags, d)
				added = true
			}
		}
	}
	if added {
		res.Diags.Sort()
	}
}

// lintResolver maps a path argument to the file system holding it: a file
// or directory on disk wins; a std/... path that is not on disk is read
// from the embedded library.
func lintResolver(arg string) (fsys fs.FS, name string) {
	return std.Resolve(arg)
}

// writeLint writes the findings; on a terminal (color set) the text
// format's severities are coloured as prose run colours its warnings.
func writeLint(w io.Writer, format lint.Format, res *lint.Result, color bool) error {
	if !color || format != lint.Text {
		return lint.Write(w, format, res)
	}
	return WriteDiagnostics(w, res.Diags, true)
}
