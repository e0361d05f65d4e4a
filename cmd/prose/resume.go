package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this placeholder with the real command.
func newResumeCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "resume",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage, err: errors.New("resume: not built yet")}
		},
	}
}
