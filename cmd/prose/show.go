package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/spec"
)

// showOptions are the flags and arguments of `prose show`.
type showOptions struct {
	path string
}

func newShowCmd(s streams) *cobra.Command {
	var o showOptions
	return &cobra.Command{
		Use:   "show FILE",
		Short: "Print a spec as typed JSON",
		Long: `show loads one spec (*.prose.md: a pattern, a function, a responsibility,
a gateway or a test) and prints what the loader read from it as indented
JSON: name, kind, version, title, summary, slots, config, inputs, outputs,
invariants, shape, delegation (its prose, its code and the .md line of the
first code line) and notes; for Contract Markdown also its goal,
execution, errors, pattern instances and inline nodes, the sentences of
Parameters or Requires that name no input (needs), and which inputs were
read from a sentence (from_sentence).

FILE - reads the spec from standard input (named <stdin>).

Diagnostics go to stderr as FILE:LINE:COL: SEVERITY: MESSAGE [CODE]: the
loader's and the static checks' (the findings of prose lint), so an error
that makes prose run refuse the spec, such as a call to an undeclared
slot, is reported here too. show prints what it could load even when the
spec has errors.

Exit status: 0 when the spec has no error-level diagnostic; 2 when it
has one (an invalid spec, which prose run refuses; its JSON is printed
all the same) or when FILE cannot be read (missing, a directory, no
permission).`,
		Example: `  # A pattern of the built-in library, then one of your own
  prose show std/patterns/ratchet.prose.md
  prose show specs/review.prose.md

  # A spec from a pipe
  cat review.prose.md | prose show -

  # Just the config keys and their defaults
  prose show std/patterns/ratchet.prose.md | jq '.config[] | {name, default}'`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runShow(cmd.Context(), s, o)
		},
	}
}

func runShow(ctx context.Context, s streams, o showOptions) error {
	sp, diags, err := loadShown(ctx, s, o.path)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("show: %w", err)}
	}
	// The static checks too, as prose run applies them: a spec run would
	// refuse does not pass show.
	diags = append(diags, lint.Spec(sp, diags)...).Dedupe()
	fmt.Fprint(s.err, diags.String())
	b, err := sp.JSON()
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("show: %w", err)}
	}
	if _, err := s.out.Write(b); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	// An invalid spec is exit 2, as prose run refuses it (the README's exit
	// statuses); its JSON is printed all the same.
	if diags.HasErrors() {
		return &exitError{code: exitUsage}
	}
	return nil
}

// loadShown loads the spec at path, or from stdin for "-"; a read that
// blocks (a named pipe nobody writes) is abandoned when ctx is done.
func loadShown(ctx context.Context, s streams, path string) (*spec.Spec, diag.List, error) {
	type loaded struct {
		sp    *spec.Spec
		diags diag.List
		err   error
	}
	done := make(chan loaded, 1)
	go func() {
		var l loaded
		if path == "-" {
			l.sp, l.diags, l.err = spec.Read(s.in, spec.StdinName)
		} else {
			l.sp, l.diags, l.err = patterns.LoadSpec(path)
		}
		done <- l
	}()
	select {
	case l := <-done:
		return l.sp, l.diags, l.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}
