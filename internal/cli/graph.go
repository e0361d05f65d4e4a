package cli

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/propose"
)

// worldCommands are the commands of the world model: graph, world,
// receipts, fix.
func worldCommands(s streams) []*cobra.Command {
	return []*cobra.Command{newGraphCmd(s), newWorldCmd(s), newReceiptsCmd(s), newFixCmd(s)}
}

// graphOptions are the flags and arguments of `prose graph`.
type graphOptions struct {
	path           string
	format         string
	propose        bool
	explain        string
	model, baseURL string
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

  (a, c) every node the item names, in backticks or bold, by id, name or
      title, or as producer.facet, is a producer (several make a fan-in,
      read as an object keyed by producer); each is bound to the facets
      the sentence names that it has ("X's F facet", "the F facet of X",
      X.F; a family stem:<key> as one keyed facet), else its whole truth;
      a word of exclusion (never, not, except, without) removes what it
      names;
  (b) else its name is a #### facet, a Maintains field or a backticked
      world-model name of exactly one other node;
  (c) else the facets or fields it names belong to exactly one node;
  (d) else the project's prose.wiring.yaml says subscriber.input:
      producer.facet.

An item none binds is an error at its line: unsatisfied (with
did-you-mean), ambiguous (naming the candidates), or unmaintained
(nothing in the project maintains it: give it with prose run DIR --input
NODE.INPUT=VALUE, wire it, or add its producer); so is an item that
closes a cycle (naming the path). A node's id is its front matter id,
else its name, else its file stem. An inline ## node that is a
responsibility by its own sections (Maintains, Requires, Continuity or
Goal) is a node too: its id is its name, or FILE-ID/name when another
node has that name. Functions are called, not wired: they are no nodes.

--explain NODE prints, for each Requires item of NODE (by id or name),
the edges it drew with the rule and the words that decided each.

--propose asks a model (--model, PROSE_MODEL) to wire the items no rule
bound: its proposals that fit the graph are appended to the project's
prose.wiring.yaml, each under a comment with its reason, for review; the
graph shown is then wired from that file (rule d). Nothing is wired by a
model otherwise.

--format text (default), json ({"nodes":[...],"edges":[...],
"entry_points":[...],"acyclic":BOOL}, @atomic for a whole truth; the
entry points are the external-driven nodes), dot or mermaid.

Exit status: 0 wired, 1 a wiring error, 2 an unreadable path or a bad
flag.`,
		Example: `  prose graph examples/basic-unit-suite
  prose graph src/alert-state.prose.md --format json
  prose graph . --format mermaid
  prose graph . --explain sample-program-builder
  prose graph . --propose --model gpt-4o-mini`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runGraph(cmd.Context(), s, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.format, "format", "text", "text, json, dot or mermaid")
	fl.StringVar(&o.explain, "explain", "", "print the words that decided each edge into `NODE`")
	fl.BoolVar(&o.propose, "propose", false, "ask a model to wire what no rule bound, into prose.wiring.yaml for review")
	fl.StringVar(&o.model, "model", "", "`MODEL` for --propose (default $PROSE_MODEL)")
	fl.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API base `URL` for --propose (default $OPENAI_BASE_URL)")
	return cmd
}

func runGraph(ctx context.Context, s streams, o graphOptions) error {
	if !slices.Contains(graph.Formats, o.format) {
		return usageErrorf("graph: unknown --format %q (want text, json, dot or mermaid)", o.format)
	}
	g, diags, err := loadWorld(o.path) // world.go: an Execution that is not ProseScript is a warning
	if err != nil {
		return &exitError{Code: exitUsage, Err: fmt.Errorf("graph: %w", err)}
	}
	if o.propose {
		if g, diags, err = proposeWiring(ctx, s, o, g); err != nil {
			return err
		}
	}
	fmt.Fprint(s.err, diags.String())
	if !diags.HasErrors() {
		if err := noNodes("graph", o.path, g, "wire"); err != nil {
			return err
		}
	}
	var b []byte
	if o.explain != "" {
		b, err = g.Explain(o.explain)
		if err != nil {
			return usageErrorf("graph --explain: %v", err)
		}
	} else {
		b, err = g.Format(o.format)
	}
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	if _, err := s.out.Write(b); err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	if diags.HasErrors() {
		return &exitError{Code: exitFailure}
	}
	return nil
}

// proposeWiring asks the model to wire g's unresolved items, appends what
// fits to the wiring file, and loads the graph again.
func proposeWiring(ctx context.Context, s streams, o graphOptions, g *graph.Graph) (*graph.Graph, diag.List, error) {
	models, err := run.NewModels(os.Getenv, o.model, o.baseURL)
	if err != nil {
		return nil, nil, usageErrorf("graph --propose: %v", err)
	}
	c, err := models.Client("")
	if err != nil || o.model == "" && os.Getenv("PROSE_MODEL") == "" {
		return nil, nil, usageErrorf("graph --propose needs a model: pass --model or set PROSE_MODEL (see Models in the README)")
	}
	res, err := propose.Ask(ctx, g, c, o.model)
	if err != nil {
		return nil, nil, &exitError{Code: exitFailure, Err: fmt.Errorf("graph --propose: %w", err)}
	}
	path, kept, err := propose.Append(g.Root, res.OK, res.Model)
	if err != nil {
		return nil, nil, &exitError{Code: exitFailure, Err: fmt.Errorf("graph --propose: %w", err)}
	}
	wrote := len(res.OK) - len(kept)
	fmt.Fprintf(s.err, "prose: proposed %d wirings into %s (%d model requests, %d tokens): review them, then commit the file\n", wrote, path, res.Requests, res.TokensIn+res.TokensOut)
	for _, p := range res.OK {
		note := p.Reason
		if slices.Contains(kept, p) {
			note = "not written: the file already wires it"
		}
		fmt.Fprintf(s.err, "  %s: %s  (%s)\n", p.Key(), p.Value(), note)
	}
	for _, r := range res.Rejected {
		fmt.Fprintf(s.err, "  rejected %s: %s: %s\n", r.Key(), r.Value(), r.Why)
	}
	g, diags, err := graph.Load(o.path)
	if err != nil {
		return nil, nil, &exitError{Code: exitUsage, Err: fmt.Errorf("graph: %w", err)}
	}
	return g, diags, nil
}
