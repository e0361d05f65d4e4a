package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/world/graph"
)

// fixOptions are the flags and argument of `prose fix`.
type fixOptions struct {
	path string
	ids  bool
}

func newFixCmd(s streams) *cobra.Command {
	var o fixOptions
	cmd := &cobra.Command{
		Use:   "fix --ids PATH",
		Short: "Write what lint asks for into the specs: --ids gives each responsibility an id",
		Long: `fix --ids writes a new id: into the front matter of each responsibility
under PATH (a directory, recursively, or a file) that has none, after its
kind: line, and prints the files it changed. An id is a UUIDv7 in 26
upper-case Crockford base32 characters; it is the node's identity (its
name is for display), so write it once and commit it. Nothing else in a
file changes.`,
		Example: `  prose fix --ids examples/basic-unit-suite`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runFix(s, o)
		},
	}
	cmd.Flags().BoolVar(&o.ids, "ids", false, "write an id: into each responsibility that has none")
	return cmd
}

func runFix(s streams, o fixOptions) error {
	if !o.ids {
		return usageErrorf("fix: say what to fix: --ids")
	}
	changed, err := graph.AddIDs(o.path, time.Now)
	for _, f := range changed {
		fmt.Fprintf(s.out, "%s: wrote an id\n", f)
	}
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("fix: %w", err)}
	}
	if len(changed) == 0 {
		fmt.Fprintf(s.err, "prose fix: every responsibility under %s has an id\n", o.path)
	}
	return nil
}
