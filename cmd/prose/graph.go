package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/world/graph"
)

// worldCommands are the commands of the world model: graph, world,
// receipts.
func worldCommands(s streams) []*cobra.Command {
	return []*cobra.Command{newGraphCmd(s), newWorldCmd(s), newReceiptsCmd(s)}
}

// graphOptions are the flags and arguments of `prose graph`.
type graphOptions struct {
	path   string
	format string
}

func newGraphCmd(s streams) *cobra.Command {
	var o graphOptions
	cmd := &cobra.Command{
		Use:   "graph PATH",
		Short: "Wire a project's responsibilities and gateways and show the graph",
		Long: `graph loads a directory (recursively, skipping dot-directories,
node_modules and files that are not regular) or a root file and what its
### Requires reach, and wires each Requires item to a producer's truth or
one of its parts, by these rules in order:

  (a) the item is written producer or producer.facet;
  (b) its name is a #### facet, a Maintains field or a backticked
      world-model name of exactly one other node;
  (c) its text names nodes in backticks or bold, by id, name or title
      (several make a fan-in), with a backticked facet of that node;
  (d) the project's prose.wiring.yaml says subscriber.input: producer.facet.

An item none binds is an error at its line when it is unsatisfied (with
did-you-mean), ambiguous (naming the candidates) or closes a cycle
(naming the path); otherwise it is a caller input. A node's id is its
front matter id, else its name, else its file stem. Functions are called,
not wired: they are no nodes.

--format text (default), json ({"nodes":[...],"edges":[...],
"entry_points":[...]}, @atomic for a whole truth), dot or mermaid.

Exit status: 0 wired, 1 a wiring error, 2 an unreadable path or a bad
flag.`,
		Example: `  prose graph examples/basic-unit-suite
  prose graph src/alert-state.prose.md --format json
  prose graph . --format mermaid`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runGraph(s, o)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "text", "text, json, dot or mermaid")
	return cmd
}

func runGraph(s streams, o graphOptions) error {
	if !slices.Contains(graph.Formats, o.format) {
		return usageErrorf("graph: unknown --format %q (want text, json, dot or mermaid)", o.format)
	}
	g, diags, err := graph.Load(o.path)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("graph: %w", err)}
	}
	fmt.Fprint(s.err, diags.String())
	b, err := g.Format(o.format)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if _, err := s.out.Write(b); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if diags.HasErrors() {
		return &exitError{code: exitFailure}
	}
	return nil
}
