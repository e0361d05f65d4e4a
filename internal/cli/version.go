package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/version"
)

// newVersionCmd is `prose version`: the module version and the commit the
// binary was built from (see package version).
func newVersionCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of prose and the commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(s.out, "prose %s\n", version.String())
			return err
		},
	}
}

// setVersion gives the root command its --version flag, printing what
// `prose version` prints.
func setVersion(root *cobra.Command) {
	root.Version = version.String()
	root.SetVersionTemplate("prose {{.Version}}\n")
}
