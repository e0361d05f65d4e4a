package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this placeholder with the real command.
func newRunsCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "runs",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage, err: errors.New("runs: not built yet")}
		},
	}
}
