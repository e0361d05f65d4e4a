package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this placeholder with the real command.
func newListCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "list",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage, err: errors.New("list: not built yet")}
		},
	}
}
