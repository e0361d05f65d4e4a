package lintcli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/world/drainspec"
	"github.com/proselang/prose/world/graph"
)

// Options are the flags of `prose lint`.
type Options struct {
	Format string
	// Summary ends text output with a count of the findings; set when
	// stdout is a terminal.
	Summary bool
	// Color colours severities; set on a terminal unless NO_COLOR is set.
	Color bool
	// AllowEmpty passes paths that hold no spec (else exit 1).
	AllowEmpty bool
}

// Run is `prose lint` of args, a - path read from in: it prints the
// findings on out; findings in files that could be read are printed even
// when another path cannot be read. The count line is printed only on a
// terminal, in text format: piped output (and the JSON, GitHub and SARIF
// formats) holds the findings alone. Its error is an ExitError, or the
// context's when ctx was cancelled (exit 130, "interrupted").
func Run(ctx context.Context, in io.Reader, out, errw io.Writer, opts Options, args []string) error {
	s := streams{in: in, out: out, err: errw}
	format, err := lint.ParseFormat(opts.Format)
	if err != nil {
		return usageErrorf("lint: %v", err)
	}
	res, pathErr := lint.PathsContext(ctx, args, lint.Options{Resolve: lintResolver, Stdin: s.in})
	if ctx.Err() != nil {
		return ctx.Err() // Main says "interrupted" and exits 130
	}
	lintWiring(res, args)
	if err := writeLint(s.out, format, res, opts.Color); err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("lint: %w", err)}
	}
	if opts.Summary && format == lint.Text {
		fmt.Fprintln(s.out, res.Summary())
	}
	if pathErr != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("lint: %w", pathErr)}
	}
	if res.Files == 0 {
		// CI must not pass on nothing (decided): a folder with no spec
		// is a failure unless asked for.
		if !opts.AllowEmpty {
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
		ds = append(ds, drainTests(arg, st.IsDir())...)
		for _, d := range ds {
			if !seen[d.String()] {
				seen[d.String()] = true
				res.Diags = append(res.Diags, d)
				added = true
			}
		}
	}
	if added {
		res.Diags = samePostcondition(res.Diags)
		res.Diags.Sort()
	}
}

// drainTests are the ### Drains findings (drainspec.Lint) of the test
// files at arg, a file or the *.prose.md files of a folder (dot-folders
// and node_modules passed over, as lint walks), so that lint fails where
// prose test would refuse to start. Only files that say Drains are read.
func drainTests(arg string, dir bool) diag.List {
	var files []string
	if !dir {
		files = []string{arg}
	} else {
		_ = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir() && p != arg && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules"):
				return filepath.SkipDir
			case d.Type().IsRegular() && strings.HasSuffix(p, lint.Suffix):
				files = append(files, p)
			}
			return nil
		})
	}
	var out diag.List
	for _, f := range files {
		if src, err := os.ReadFile(f); err == nil && bytes.Contains(src, []byte("Drains")) {
			out = append(out, drainspec.Lint(f)...)
		}
	}
	return out
}

// samePostcondition drops each lint/postcondition-field finding at the
// place of a graph/postcondition one: the two say the same of the same
// postcondition of a responsibility (a file linted alone gets the first).
func samePostcondition(ds diag.List) diag.List {
	at := map[diag.Position]bool{}
	for _, d := range ds {
		if d.Code == graph.CodePostcondition {
			at[d.Position] = true
		}
	}
	if len(at) == 0 {
		return ds
	}
	out := ds[:0]
	for _, d := range ds {
		if d.Code == lint.CodePostconditionField && at[d.Position] {
			continue
		}
		out = append(out, d)
	}
	return out
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
