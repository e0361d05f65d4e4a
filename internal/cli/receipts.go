package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// trustedKeyEnv names the file of the trusted key when --trusted-key is
// not given.
const trustedKeyEnv = "PROSE_TRUSTED_KEY"

// trustedKey reads --trusted-key FILE (flag; else $PROSE_TRUSTED_KEY): the
// ed25519 public key every receipt must be signed by (nil: none given).
func trustedKey(flag string) (ed25519.PublicKey, error) {
	p, from := flag, "--trusted-key"
	if p == "" {
		p, from = os.Getenv(trustedKeyEnv), "$"+trustedKeyEnv
	}
	if p == "" {
		return nil, nil
	}
	b, err := filekind.ReadFile(p)
	if err != nil {
		return nil, usageErrorf("%s: %v", from, err)
	}
	k, err := receipt.ParsePublicKey(b)
	if err != nil {
		return nil, usageErrorf("%s %s: %v", from, p, err)
	}
	return k, nil
}

// lockState takes the writer lock of the state directory dir for
// command, before anything of it is read: refused while another process
// holds it, or with wait, waiting until it is free or ctx ends. A
// directory served on Temporal is refused (its drains are the
// workflow's).
func lockState(ctx context.Context, dir, command string, wait bool) (func(), error) {
	release, err := store.Lock(ctx, dir, store.LockOptions{Command: command, Wait: wait})
	if err != nil {
		if ctx.Err() != nil {
			return nil, &exitError{Code: exitInterrupt, Err: fmt.Errorf("interrupted while waiting for %s", store.LockPath(dir))}
		}
		return nil, &exitError{Code: exitFailure, Err: err}
	}
	if b, err := filekind.ReadFile(serve.TemporalMark(dir)); err == nil {
		release()
		return nil, &exitError{Code: exitFailure, Err: fmt.Errorf("%s is served on Temporal (%s): its drains are that workflow's; trigger it through its prose serve, or remove %s", dir, strings.TrimSpace(string(b)), serve.TemporalMark(dir))}
	}
	return release, nil
}

// stateError is an error of openState for command: a usage error.
func stateError(command string, err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{Code: exitUsage, Err: fmt.Errorf("%s: %w", command, err)}
}

// openState is findState with the trusted key of flag (or the
// environment).
func openState(state, trusted string) (*store.Store, error) {
	key, err := trustedKey(trusted)
	if err != nil {
		return nil, err
	}
	st, err := findState(state)
	if err != nil {
		return nil, err
	}
	st.Trusted = key
	return st, nil
}

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
	var state, facet, version, trusted string
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
directory. A node whose ledger or published files do not check (torn,
cut, edited, or signed otherwise than the store or --trusted-key wants)
is refused, naming the file; so is a node whose directory does not
agree with the drain index (an older copy of it put back, or removed
while the index records receipts of it): its truth is not the one the
node last published, and prose receipts repair --accept NODE takes it
as it is.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openState(state, trusted)
			if err != nil {
				return stateError("world show", err)
			}
			return worldShow(s, st, args[0], facet, version)
		},
	}
	show.Flags().StringVar(&state, "state", "", "state `DIR` (default: the nearest .prose/world)")
	show.Flags().StringVar(&facet, "facet", "", "print only `FACET`, a member of the truth")
	show.Flags().StringVar(&version, "version", "", "print the committed `VERSION` (sha256:HEX) instead of the published one")
	show.Flags().StringVar(&trusted, "trusted-key", "", "refuse receipts not signed by the ed25519 public key in `FILE` (default $"+trustedKeyEnv+")")
	world.AddCommand(show)
	return world
}

// storedNode is the id under which st keeps the node named name (by id
// or name).
func storedNode(st *store.Store, name string) string {
	nodes, _ := st.Nodes()
	return graph.StoredNode(nodes, st.Dir, name)
}

// storedLabels names the nodes of st as prose graph does: the id, with
// the name beside it where they differ, read from the project whose
// .prose/world st is; the id alone when there is no such project.
func storedLabels(st *store.Store) func(id string) string {
	labels := map[string]string{}
	if filepath.Base(st.Dir) == "world" && filepath.Base(filepath.Dir(st.Dir)) == ".prose" {
		if g, _, err := graph.Load(filepath.Dir(filepath.Dir(st.Dir))); err == nil {
			for _, n := range g.Nodes {
				labels[n.ID] = n.Label()
			}
		}
	}
	return func(id string) string {
		if l, ok := labels[id]; ok {
			return l
		}
		return id
	}
}

func worldShow(s streams, st *store.Store, node, facet, version string) error {
	id := storedNode(st, node)
	v, err := st.Show(id, facet, version)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("world show: %w", err)}
	}
	b, err := canon.Indent(v)
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	if version == "" {
		failedSince(s, st, node, id)
		sourcesMoved(s, st, "world show", id)
	}
	_, err = s.out.Write(b)
	return err
}

// sourcesMoved says on stderr which nodes (only, when not "") of the
// project whose .prose/world st is have a published truth that does not
// follow from the project's files now (reconcile.SourcesMoved: a contract
// or the wiring edited, a node added or removed since the last drain).
// Decided: what is shown stays the store's, and the exit status 0; the
// note keeps a reader from taking it for current. A store elsewhere
// (--state) names no project, and a project that does not load cannot
// be compared: nothing is said of them.
func sourcesMoved(s streams, st *store.Store, command, only string) {
	if filepath.Base(st.Dir) != "world" || filepath.Base(filepath.Dir(st.Dir)) != ".prose" {
		return
	}
	project := filepath.Dir(filepath.Dir(st.Dir))
	g, diags, err := graph.Load(project)
	if err != nil || diags.HasErrors() {
		return
	}
	moved, err := reconcile.SourcesMoved(g, st)
	if err != nil {
		return // the command's own reading of the store says what is wrong
	}
	for _, m := range moved {
		if only != "" && m.Node != only {
			continue
		}
		fmt.Fprintf(s.err, "prose: %s: %s is not current: %s; the next drain of %s brings it up to date\n", command, nodeLabel(g, m.Node), m.Why, project)
	}
}

// failedSince says on stderr when the published truth of node (stored as
// id) is not what its last render gave: that render failed, and the
// truth shown is an earlier drain's, kept (decided: the output stays the
// published truth, and the exit status 0; the note keeps a reader from
// taking it for the current one).
func failedSince(s streams, st *store.Store, node, id string) {
	rs, err := st.CheckedLedger(id)
	if err != nil || len(rs) == 0 || rs[len(rs)-1].Status != receipt.Failed {
		return
	}
	last := rs[len(rs)-1]
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Status == receipt.Rendered {
			fmt.Fprintf(s.err, "prose: world show: the last render of %s (drain %d) failed: %s; shown is the truth of drain %d\n", node, last.Drain, last.Reason, rs[i].Drain)
			return
		}
	}
}

func newReceiptsCmd(s streams) *cobra.Command {
	var state, format, trusted string
	cmd := &cobra.Command{
		Use:   "receipts [NODE]",
		Short: "List a world model's receipts; verify them; sum their cost",
		Long: `receipts lists the receipts of every node (or NODE's) in ledger order:
by drain, then by their order in the drain. --format json prints them as
a JSON array, each receipt with all its fields. A ledger that does not
check from its head record (torn, cut, edited, signed otherwise) is
refused, naming it, by the list and by cost; so is a node directory that
does not agree with the drain index (an older copy put back, or one
removed while the index records receipts of it). verify names every
problem.

  prose receipts verify   checks every ledger's hash chain and signatures,
                          that each version a receipt names is stored with
                          the content its address says, and that the
                          published truth.json and facet files are the last
                          receipt's version; each problem names its file
                          (exit 1).
  prose receipts repair   rebuilds what the ledgers still vouch for: head
                          records behind their ledgers, published files
                          that are not the last receipt's version; says
                          what it did, then verifies. --accept NODE takes
                          NODE's ledger as it is when it checks but is
                          not what its head record or the drain index
                          says (restored from an older copy), or the loss
                          of NODE's directory, removed (the next drain
                          renders it anew).
  prose receipts cost     sums requests, tokens and programs by node and by
                          wake source.

The state directory is --state DIR, else the nearest .prose/world at or
above the current directory. --trusted-key FILE (or $PROSE_TRUSTED_KEY)
names the ed25519 public key every receipt must be signed by; without it
a store created with --sign-key still refuses receipts not signed by the
key its FORMAT file records.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageErrorf("receipts: unknown --format %q (want text or json)", format)
			}
			st, err := openState(state, trusted)
			if err != nil {
				return stateError("receipts", err)
			}
			node := ""
			if len(args) == 1 {
				node = storedNode(st, args[0])
			}
			rs, err := st.Receipts(node)
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts: %w", err)}
			}
			sourcesMoved(s, st, "receipts", node)
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
			label := storedLabels(st)
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "DRAIN\tSEQ\tNODE\tSTATUS\tWAKE\tMOVED\tHASH")
			for _, r := range rs {
				moved := strings.Join(r.Diff.Moved, ",")
				if r.Status == receipt.Failed {
					// on one line: a program's stderr (a traceback) would
					// else break the table's rows (--format json keeps it)
					moved = strings.Join(strings.Fields(r.Reason), " ")
				}
				fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Drain, r.Seq, label(r.Node), r.Status, r.Wake.Source, moved, short(r.Hash))
			}
			return tw.Flush()
		},
	}
	cmd.PersistentFlags().StringVar(&state, "state", "", "state `DIR` (default: the nearest .prose/world)")
	cmd.PersistentFlags().StringVar(&trusted, "trusted-key", "", "refuse receipts not signed by the ed25519 public key in `FILE` (default $"+trustedKeyEnv+")")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	cmd.AddCommand(&cobra.Command{
		Use:   "verify",
		Short: "Check the receipt chains, signatures, versions and published files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openState(state, trusted)
			if err != nil {
				return stateError("receipts verify", err)
			}
			problems, err := st.Verify(nil, nil)
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts verify: %w", err)}
			}
			for _, p := range problems {
				fmt.Fprintln(s.err, p)
			}
			n := len(problems)
			// serve's queue: the triggers it acknowledged, checked against
			// its head record as a server's start checks them
			if _, err := serve.ReadQueue(st.Dir); err != nil {
				fmt.Fprintln(s.err, err)
				n++
			}
			if n > 0 {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts verify: %d problems", n)}
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
			st, err := openState(state, trusted)
			if err != nil {
				return stateError("receipts cost", err)
			}
			rs, err := st.Receipts("")
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts cost: %w", err)}
			}
			printCost(s, rs)
			return nil
		},
	})
	cmd.AddCommand(newReceiptsRepairCmd(s, &state, &trusted))
	cmd.AddCommand(newReceiptsHeldCmd(s, &state, &trusted))
	cmd.AddCommand(newReceiptsSetAsideCmd(s, &state, &trusted))
	return cmd
}

// openQueue opens the serve queue of st's directory, for command; nil
// when there is none (nothing was ever held).
func openQueue(st *store.Store, command string) (*serve.Queue, error) {
	if !serve.HasQueue(st.Dir) {
		return nil, nil
	}
	q, err := serve.OpenQueue(st.Dir)
	if err != nil {
		return nil, &exitError{Code: exitFailure, Err: fmt.Errorf("%s: %w", command, err)}
	}
	return q, nil
}

// newReceiptsHeldCmd is `prose receipts held`: the events each gateway
// holds, its render having failed, which every drain delivers again.
func newReceiptsHeldCmd(s streams, state, trusted *string) *cobra.Command {
	return &cobra.Command{
		Use:   "held [NODE]",
		Short: "List the events held for gateways whose render failed (delivered again by every drain)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openState(*state, *trusted)
			if err != nil {
				return stateError("receipts held", err)
			}
			// read only, as a page does: a server may be writing it
			v, err := serve.ReadQueue(st.Dir)
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts held: %w", err)}
			}
			held := v.Held
			var nodes []string
			for n := range held {
				if len(args) == 0 || n == storedNode(st, args[0]) {
					nodes = append(nodes, n)
				}
			}
			sort.Strings(nodes)
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NODE\tDRAIN\tFP\tEVENT")
			for _, n := range nodes {
				for _, e := range held[n] {
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", n, e.Drain, e.FP, e.Event)
				}
			}
			return tw.Flush()
		},
	}
}

// newReceiptsSetAsideCmd is `prose receipts set-aside NODE FP`: a writer
// of the state directory, under its lock, that ends the hold of one
// event (serve.Queue.SetAside: journaled in the queue file with the
// event and why, never dropped in silence).
func newReceiptsSetAsideCmd(s streams, state, trusted *string) *cobra.Command {
	var why string
	var wait bool
	cmd := &cobra.Command{
		Use:   "set-aside NODE FP",
		Short: "Deliver a held event no more: recorded, with the event and --why, in the serve queue",
		Long: `set-aside ends the hold of the event of fingerprint FP (as prose receipts
held lists it) that NODE, a gateway whose render failed, holds: every
drain delivers a held event again until its gateway renders or skips, so
one it never accepts blocks the gateway. The queue file records the
event, whole, with --why in an aside line; the event stays seen, so
sent again it is a duplicate. Refused while prose serve (or any writer)
holds the state directory.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(why) == "" {
				return usageErrorf("receipts set-aside: give --why TEXT: the queue file records why the event is no longer delivered")
			}
			st, err := openState(*state, *trusted)
			if err != nil {
				return stateError("receipts set-aside", err)
			}
			release, err := lockState(cmd.Context(), st.Dir, "prose receipts set-aside", wait)
			if err != nil {
				return err
			}
			defer release()
			q, err := openQueue(st, "receipts set-aside")
			if err != nil {
				return err
			}
			if q == nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts set-aside: %s holds no event (%s has no serve queue)", args[0], st.Dir)}
			}
			defer q.Close()
			ev, err := q.SetAside(storedNode(st, args[0]), args[1], why)
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts set-aside: %w (see prose receipts held)", err)}
			}
			fmt.Fprintf(s.out, "set aside %s's held event %s: %s\nit is no longer delivered; %s keeps it in an aside line\n", args[0], ev.FP, ev.Event, serve.QueuePath(st.Dir))
			return nil
		},
	}
	cmd.Flags().StringVar(&why, "why", "", "why the event is set aside (`TEXT`, recorded with it; required)")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait while another process writes the state directory, instead of refusing")
	return cmd
}

// newReceiptsRepairCmd is `prose receipts repair`: a writer of the state
// directory, under its lock.
func newReceiptsRepairCmd(s streams, state, trusted *string) *cobra.Command {
	var accept []string
	var wait bool
	var signKey string
	cmd := &cobra.Command{
		Use:   "repair",
		Short: "Rebuild head records and published files from the ledgers; say what was repaired",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openState(*state, *trusted)
			if err != nil {
				return stateError("receipts repair", err)
			}
			release, err := lockState(cmd.Context(), st.Dir, "prose receipts repair", wait)
			if err != nil {
				return err
			}
			defer release()
			acc := map[string]bool{}
			for _, n := range accept {
				acc[n] = true
			}
			var key ed25519.PrivateKey
			if signKey != "" {
				if key, err = readSignKey(signKey); err != nil {
					return usageErrorf("--sign-key: %v", err)
				}
			}
			did, err := st.RepairAll(acc, key)
			for _, d := range did {
				fmt.Fprintln(s.out, "repaired "+d)
			}
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts repair: %w", err)}
			}
			problems, err := st.Verify(nil, nil)
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts repair: %w", err)}
			}
			for _, p := range problems {
				fmt.Fprintln(s.err, p)
			}
			if len(problems) > 0 {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("receipts repair: %d problems left that no repair rebuilds: restore those files from a backup (or --accept NODE a ledger that checks)", len(problems))}
			}
			if len(did) == 0 {
				fmt.Fprintln(s.out, "nothing to repair: every chain, version and published file checks")
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&accept, "accept", nil, "take `NODE`'s ledger as it is when its chain checks but its head record or the drain index says otherwise, or the loss of its removed directory; repeatable")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait while another process writes the state directory, instead of refusing")
	cmd.Flags().StringVar(&signKey, "sign-key", "", "in a signed store, sign the head records written with the store's ed25519 private key in `FILE`")
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
