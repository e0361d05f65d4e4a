package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this placeholder with the real command.
func newShowCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "show",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage, err: errors.New("show: not built yet")}
		},
	}
}
