package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/patterns"
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
		Long: `show loads one pattern spec (*.prose.md) and prints what the loader read
from it as indented JSON: name, kind, version, title, summary, slots,
config, inputs, outputs, invariants, shape, delegation (its prose, its
code and the .md line of the first code line) and notes.

Diagnostics go to stderr as FILE:LINE:COL: SEVERITY: MESSAGE [CODE].
show prints what it could load even when the spec has errors.

Exit status: 0 when the spec has no error-level diagnostic, 1 when it has
one, 2 when FILE cannot be read (missing, a directory, no permission).`,
		Example: `  # A pattern of the built-in library, then one of your own
  prose show std/patterns/ratchet.prose.md
  prose show specs/review.prose.md

  # Just the config keys and their defaults
  prose show std/patterns/ratchet.prose.md | jq '.config[] | {name, default}'`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runShow(s, o)
		},
	}
}

func runShow(s streams, o showOptions) error {
	sp, diags, err := patterns.LoadSpec(o.path)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("show: %w", err)}
	}
	fmt.Fprint(s.err, diags.String())
	b, err := sp.JSON()
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("show: %w", err)}
	}
	if _, err := s.out.Write(b); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if diags.HasErrors() {
		return &exitError{code: exitFailure}
	}
	return nil
}
