package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// findState is --state, or the nearest .prose/world at or above the
// current directory.
func findState(flag string) (*store.Store, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return store.Find(flag, dir)
}

func newWorldCmd(s streams) *cobra.Command {
	var state, facet, version string
	world := &cobra.Command{
		Use:   "world",
		Short: "Read a world model's published truths",
	}
	show := &cobra.Command{
		Use:   "show NODE",
		Short: "Print a node's published truth (or a facet, or a version) as JSON",
		Long: `world show prints NODE's published truth as canonical, indented JSON on
stdout: the whole truth, --facet F its member F, --version sha256:HEX a
committed version (as named by a receipt). The state directory is
--state DIR, else the nearest .prose/world at or above the current
directory.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := findState(state)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("world show: %w", err)}
			}
			return worldShow(s, st, args[0], facet, version)
		},
	}
	show.Flags().StringVar(&state, "state", "", "state `DIR` (default: the nearest .prose/world)")
	show.Flags().StringVar(&facet, "facet", "", "print only `FACET`, a member of the truth")
	show.Flags().StringVar(&version, "version", "", "print the committed `VERSION` (sha256:HEX) instead of the published one")
	world.AddCommand(show)
	return world
}

// storedNode is the id under which st keeps the node named name (by id
// or name).
func storedNode(st *store.Store, name string) string {
	nodes, _ := st.Nodes()
	return graph.StoredNode(nodes, st.Dir, name)
}

func worldShow(s streams, st *store.Store, node, facet, version string) error {
	v, err := st.Show(storedNode(st, node), facet, version)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("world show: %w", err)}
	}
	b, err := canon.Indent(v)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	_, err = s.out.Write(b)
	return err
}

func newReceiptsCmd(s streams) *cobra.Command {
	var state, format string
	cmd := &cobra.Command{
		Use:   "receipts [NODE]",
		Short: "List a world model's receipts; verify them; sum their cost",
		Long: `receipts lists the receipts of every node (or NODE's) in ledger order:
by drain, then by their order in the drain. --format json prints them as
a JSON array, each receipt with all its fields.

  prose receipts verify   checks every ledger's hash chain and signatures,
                          that each version a receipt names is stored with
                          the content its address says, and that the
                          published truth.json and facet files are the last
                          receipt's version; each problem names its file
                          (exit 1).
  prose receipts cost     sums requests, tokens and programs by node and by
                          wake source.

The state directory is --state DIR, else the nearest .prose/world at or
above the current directory.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageErrorf("receipts: unknown --format %q (want text or json)", format)
			}
			st, err := findState(state)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("receipts: %w", err)}
			}
			node := ""
			if len(args) == 1 {
				node = storedNode(st, args[0])
			}
			rs, err := st.Receipts(node)
			if err != nil {
				return &exitError{code: exitFailure, err: fmt.Errorf("receipts: %w", err)}
			}
			if format == "json" {
				if rs == nil {
					rs = []*receipt.Receipt{}
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetIndent("", "  ")
				enc.Encode(rs)
				_, err := s.out.Write(buf.Bytes())
				return err
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "DRAIN\tSEQ\tNODE\tSTATUS\tWAKE\tMOVED\tHASH")
			for _, r := range rs {
				moved := strings.Join(r.Diff.Moved, ",")
				if r.Status == receipt.Failed {
					moved = r.Reason
				}
				fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Drain, r.Seq, r.Node, r.Status, r.Wake.Source, moved, short(r.Hash))
			}
			return tw.Flush()
		},
	}
	cmd.PersistentFlags().StringVar(&state, "state", "", "state `DIR` (default: the nearest .prose/world)")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	cmd.AddCommand(&cobra.Command{
		Use:   "verify",
		Short: "Check the receipt chains, signatures, versions and published files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := findState(state)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("receipts verify: %w", err)}
			}
			problems, err := st.Verify(nil, nil)
			if err != nil {
				return &exitError{code: exitFailure, err: fmt.Errorf("receipts verify: %w", err)}
			}
			for _, p := range problems {
				fmt.Fprintln(s.err, p)
			}
			if len(problems) > 0 {
				return &exitError{code: exitFailure, err: fmt.Errorf("receipts verify: %d problems", len(problems))}
			}
			rs, _ := st.Receipts("")
			fmt.Fprintf(s.out, "ok: %d receipts, every chain, version and published file checks\n", len(rs))
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "cost",
		Short: "Sum requests, tokens and programs by node and by wake source",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := findState(state)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("receipts cost: %w", err)}
			}
			rs, err := st.Receipts("")
			if err != nil {
				return &exitError{code: exitFailure, err: fmt.Errorf("receipts cost: %w", err)}
			}
			printCost(s, rs)
			return nil
		},
	})
	return cmd
}

func short(h string) string {
	if len(h) > 19 {
		return h[:19]
	}
	return h
}

func printCost(s streams, rs []*receipt.Receipt) {
	byNode, byWake := receipt.Costs(rs)
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	for _, part := range []struct {
		head string
		rows []receipt.CostRow
	}{{"NODE", byNode}, {"WAKE", byWake}} {
		fmt.Fprintf(tw, "%s\tRENDERED\tSKIPPED\tFAILED\tREQUESTS\tTOKENS IN\tTOKENS OUT\tPROGRAMS\n", part.head)
		for _, r := range part.rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Key, r.Rendered, r.Skipped, r.Failed, r.Requests, r.TokensIn, r.TokensOut, r.Programs)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
