package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this placeholder with the real command.
func newReplayCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "replay",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage, err: errors.New("replay: not built yet")}
		},
	}
}
