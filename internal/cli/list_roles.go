package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// listRoles describes the role functions of the library (std/roles).
func listRoles() []listed {
	var out []listed
	for _, e := range std.Roles() {
		l := listed{Entry: e, Slots: []listedSlot{}, Config: []string{}}
		if data, err := std.ReadFile(e.Path); err == nil {
			sp, _ := spec.Parse(e.Path, data)
			for _, in := range sp.Inputs {
				l.Inputs = append(l.Inputs, in.Name)
			}
			for _, o := range sp.Outputs {
				l.Outputs = append(l.Outputs, o.Name)
			}
		}
		out = append(out, l)
	}
	return out
}

// printRoles prints the roles' table after the patterns'.
func printRoles(out io.Writer, roles []listed) error {
	if len(roles) == 0 {
		return nil
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tPARAMETERS -> RETURNS\tSUMMARY")
	for _, l := range roles {
		fmt.Fprintf(tw, "%s\t%s -> %s\t%s\n", l.Name, strings.Join(l.Inputs, ", "), strings.Join(l.Outputs, ", "), l.Summary)
	}
	return tw.Flush()
}
