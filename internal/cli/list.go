package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// listOptions are the flags of `prose list`.
type listOptions struct {
	json bool
}

func newListCmd(s streams) *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the patterns and role functions of the built-in library (std/)",
		Long: `List prints the patterns compiled into prose: their name, their slots
and a one-line summary. Each can be run, shown or linted by its library
path from any directory, for example std/patterns/ratchet.prose.md (a
std/... path that does not exist on disk is read from the built-in copy;
std/patterns/ratchet and std/ratchet name the same file).

A slot marked [] is a list slot: bind it by repeating --slot in order.

The role functions (std/roles) follow: small functions such as critic or
summarizer, to call from an Execution or to bind to a slot or callee, as in
--slot critic=std/roles/critic.prose.md.

With --json, the output is a JSON array of objects
{kind, name, title, summary, path, slots: [{name, list, primary}], config: [names]};
a role has kind "function" and lists its inputs and outputs instead.`,
		Example: `  # See what is available
  prose list

  # Read one pattern in full, then run it
  prose show std/patterns/ratchet.prose.md
  prose run std/patterns/ratchet.prose.md --slot advancer=exec:./advance.sh \
      --slot certifier=exec:./certify.sh --input task_brief="tidy the parser"

  # Names only, for a script
  prose list --json | python3 -c 'import json,sys; print(*[p["name"] for p in json.load(sys.stdin)])'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("list takes no arguments (got %q); run 'prose list --help' for usage", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return runList(s.out, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array instead of a table")
	return cmd
}

// listedSlot is a slot as `prose list --json` prints it.
type listedSlot struct {
	Name    string `json:"name"`
	List    bool   `json:"list"`
	Primary bool   `json:"primary"`
}

// listed is one pattern as `prose list --json` prints it.
type listed struct {
	std.Entry
	Slots   []listedSlot `json:"slots"`
	Config  []string     `json:"config"`
	Inputs  []string     `json:"inputs,omitempty"`
	Outputs []string     `json:"outputs,omitempty"`
}

func runList(out io.Writer, opts *listOptions) error {
	var all []listed
	for _, e := range std.List() {
		l := listed{Entry: e, Slots: []listedSlot{}, Config: []string{}}
		if data, err := std.ReadFile(e.Path); err == nil {
			sp, _ := spec.Parse(e.Path, data)
			for _, sl := range sp.Slots {
				l.Slots = append(l.Slots, listedSlot{Name: sl.Name, List: sl.List, Primary: sl.Primary})
			}
			for _, c := range sp.Config {
				l.Config = append(l.Config, c.Name)
			}
		}
		all = append(all, l)
	}
	roles := listRoles()
	if opts.json {
		all = append(all, roles...)
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSLOTS\tSUMMARY")
	for _, l := range all {
		var slots []string
		for _, sl := range l.Slots {
			if sl.List {
				slots = append(slots, sl.Name+"[]")
			} else {
				slots = append(slots, sl.Name)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, strings.Join(slots, ", "), l.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printRoles(out, roles)
}
