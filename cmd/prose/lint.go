package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this placeholder with the real command.
func newLintCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "lint",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage, err: errors.New("lint: not built yet")}
		},
	}
}
