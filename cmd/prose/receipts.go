package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// findState is --state, or the nearest .prose/world at or above the
// current directory.
func findState(flag string) (*store.Store, error) {
	if flag != "" {
		if _, err := os.Stat(filepath.Join(flag, "FORMAT")); err != nil {
			return nil, fmt.Errorf("%s is no world model state directory (no FORMAT file): run prose run DIR first", flag)
		}
		return store.Open(flag)
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		p := filepath.Join(dir, ".prose", "world")
		if _, err := os.Stat(filepath.Join(p, "FORMAT")); err == nil {
			return store.Open(p)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil, errors.New("no .prose/world here or above: run prose run DIR first, or name it with --state DIR")
		}
		dir = up
	}
}

// allReceipts reads every ledger (or node's), in ledger order: by drain,
// then seq.
func allReceipts(st *store.Store, node string) ([]*receipt.Receipt, error) {
	var nodes []string
	if node != "" {
		nodes = []string{node}
	} else {
		dirs, err := st.Nodes()
		if err != nil {
			return nil, err
		}
		nodes = dirs
	}
	var out []*receipt.Receipt
	for _, n := range nodes {
		rs, err := st.Ledger(n)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	if node != "" && len(out) == 0 {
		return nil, fmt.Errorf("node %s has no receipts in %s", node, st.Dir)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Drain != out[j].Drain {
			return out[i].Drain < out[j].Drain
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
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

func worldShow(s streams, st *store.Store, node, facet, version string) error {
	var v any
	var err error
	if version != "" {
		v, err = st.Version(node, version)
	} else {
		var ok bool
		v, ok, err = st.Published(node)
		if err == nil && !ok {
			err = fmt.Errorf("node %s has published no truth in %s", node, st.Dir)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("node %s has no version %s in %s", node, version, st.Dir)
	}
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("world show: %w", err)}
	}
	if facet != "" {
		m, _ := v.(map[string]any)
		x, ok := m[facet]
		if !ok {
			var names []string
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			return &exitError{code: exitFailure, err: fmt.Errorf("world show: the truth of %s has no member %q (members: %s)", node, facet, strings.Join(names, ", "))}
		}
		v = x
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
				node = args[0]
			}
			rs, err := allReceipts(st, node)
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
			rs, _ := allReceipts(st, "")
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
			rs, err := allReceipts(st, "")
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

type costRow struct {
	key                                     string
	rendered, skipped, failed               int
	requests, tokensIn, tokensOut, programs int
}

func printCost(s streams, rs []*receipt.Receipt) {
	by := func(key func(*receipt.Receipt) string) []*costRow {
		m := map[string]*costRow{}
		var keys []string
		for _, r := range rs {
			k := key(r)
			row := m[k]
			if row == nil {
				row = &costRow{key: k}
				m[k] = row
				keys = append(keys, k)
			}
			switch r.Status {
			case receipt.Rendered:
				row.rendered++
			case receipt.Skipped:
				row.skipped++
			default:
				row.failed++
			}
			row.requests += r.Cost.Requests
			row.tokensIn += r.Cost.TokensIn
			row.tokensOut += r.Cost.TokensOut
			row.programs += r.Cost.Programs
		}
		sort.Strings(keys)
		var out []*costRow
		for _, k := range keys {
			out = append(out, m[k])
		}
		return out
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	for _, part := range []struct {
		head string
		rows []*costRow
	}{
		{"NODE", by(func(r *receipt.Receipt) string { return r.Node })},
		{"WAKE", by(func(r *receipt.Receipt) string { return r.Wake.Source })},
	} {
		fmt.Fprintf(tw, "%s\tRENDERED\tSKIPPED\tFAILED\tREQUESTS\tTOKENS IN\tTOKENS OUT\tPROGRAMS\n", part.head)
		for _, r := range part.rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", r.key, r.rendered, r.skipped, r.failed, r.requests, r.tokensIn, r.tokensOut, r.programs)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
