package view

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// NodePage is what a node's page shows.
type NodePage struct {
	ID, Name, Label, Kind, File, Wake string
	Entry                             bool
	// InProject is false for a node the store has and the project not.
	InProject bool
	Status    NodeStatus
	// Inputs are the edges into the node; Subscribers the nodes it feeds.
	Inputs      []*graph.Edge
	Subscribers []string
	// Truth is the published truth.json as the file holds it ("" when
	// there is none), with the verification problems of that file.
	Truth         string
	TruthProblems []store.Problem
	Facets        []Facet
	// Versions are the committed versions the receipts name, in the
	// order they were first published.
	Versions []Version
	// Receipts is the ledger, in order, each with its own check and its
	// wake; LedgerProblems the problems of the ledger and head files.
	Receipts       []ReceiptRow
	LedgerProblems []store.Problem
	// LedgerError is set when the ledger does not read at all.
	LedgerError string
	// Problems are every verification problem of the node.
	Problems []store.Problem
	// Cost sums the node's receipts; ByWake by wake source.
	Cost   receipt.CostRow
	ByWake []receipt.CostRow
}

// Facet is one published facet file.
type Facet struct {
	Name     string
	JSON     string
	Problems []store.Problem
}

// Version is one committed truth of a node.
type Version struct {
	Address string
	// Receipt is the number (from 1) of the first receipt that published
	// it; Drain, Seq that receipt's; Fields the members it changed.
	Receipt    int
	Drain, Seq int
	Fields     []string
	Problems   []store.Problem
}

// ReceiptRow is one receipt of a node's ledger.
type ReceiptRow struct {
	N int // its number in the ledger, from 1
	R *receipt.Receipt
	// Check is "" when the receipt verifies on its own and links to the
	// one before; else why not.
	Check string
	Wake  Wake
}

// Wake is what caused a receipt: its source and, for an input wake, the
// producers' receipts whose parts moved and the inputs they moved.
type Wake struct {
	Source string
	Causes []Cause
	// Events is the events' fingerprint of an external wake.
	Events string
}

// Cause is one producer receipt that woke a node.
type Cause struct {
	Receipt string
	// Producer is the node whose receipt it is; Found is false when no
	// producer's ledger has it (then Producer is "").
	Producer   string
	Found      bool
	Drain, Seq int
	// Moved are the parts the producer's receipt moved; Inputs the
	// woken node's inputs from that producer whose fingerprints moved
	// against its previous render.
	Moved  []string
	Inputs []string
}

// ErrNoNode is returned for a node neither the project nor the store
// has.
var ErrNoNode = errors.New("no such node")

// Node is node id's page, read from the store now.
func (w *World) Node(id string) (*NodePage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.nodes[id]
	if m == nil {
		var ids []string
		for _, n := range w.Graph.Nodes {
			ids = append(ids, n.ID)
		}
		hint := ""
		if near := graph.Nearest(id, ids); near != "" {
			hint = "; did you mean " + near + "?"
		}
		return nil, fmt.Errorf("%w %q in the project or %s%s", ErrNoNode, id, w.StateDir, hint)
	}
	p := &NodePage{ID: id, Label: id, Status: m.status, Cost: m.cost}
	if p.Cost.Key == "" {
		p.Cost.Key = id
	}
	for _, k := range sortedKeys(m.byWake) {
		p.ByWake = append(p.ByWake, m.byWake[k])
	}
	var facets []string
	if n := w.node(id); n != nil {
		p.InProject = true
		p.Name, p.Label, p.Kind, p.File, p.Wake = n.Name, n.Label(), string(n.Kind), n.File, n.Wake
		p.Inputs = w.in[id]
		p.Subscribers = w.subs[id]
		p.Entry = n.Wake == graph.WakeExternal
		facets = n.Facets
	}
	if w.st == nil {
		return p, nil
	}
	// Verified afresh: Poll does not see a version edited in place.
	ps, rs, err := w.st.VerifyNodeLedger(id, facets)
	if err != nil {
		return nil, err
	}
	p.Problems = ps
	p.Status.Failing = len(ps) > 0 || m.readErr != ""
	byFile := map[string][]store.Problem{}
	for _, pr := range ps {
		byFile[pr.File] = append(byFile[pr.File], pr)
	}
	p.Truth, p.TruthProblems = published(w.st.TruthPath(id)), byFile[w.st.TruthPath(id)]
	for _, f := range facets {
		fp := w.st.FacetPath(id, f)
		p.Facets = append(p.Facets, Facet{Name: f, JSON: published(fp), Problems: byFile[fp]})
	}
	p.LedgerProblems = append(byFile[w.st.LedgerPath(id)], byFile[w.st.HeadPath(id)]...)
	if rs == nil {
		// The check did not read it: say why, if it does not read.
		if rs, err = w.st.Ledger(id); err != nil {
			p.LedgerError = err.Error()
			return p, nil
		}
	}
	p.Receipts = w.rows(id, rs)
	seen := map[string]bool{}
	for i, r := range rs {
		if r.Version == "" || seen[r.Version] {
			continue
		}
		seen[r.Version] = true
		p.Versions = append(p.Versions, Version{Address: r.Version, Receipt: i + 1, Drain: r.Drain, Seq: r.Seq,
			Fields: r.Diff.Fields, Problems: byFile[w.st.VersionPath(id, r.Version)]})
	}
	return p, nil
}

// published is the text of a published file, "" when absent; a file
// that does not read says why.
func published(p string) string {
	b, err := filekind.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return "(" + err.Error() + ")"
	}
	return string(b)
}

// rows checks each receipt of node id's ledger rs on its own and against
// the one before, and finds what woke it.
func (w *World) rows(id string, rs []*receipt.Receipt) []ReceiptRow {
	producers := w.producerReceipts(id)
	out := make([]ReceiptRow, len(rs))
	prev := ""
	var prevOK *receipt.Receipt
	for i, r := range rs {
		row := ReceiptRow{N: i + 1, R: r, Wake: w.wake(id, r, prevOK, producers)}
		switch err := r.Check(w.Trusted); {
		case err != nil:
			row.Check = err.Error()
		case r.Prev != prev:
			row.Check = fmt.Sprintf("its prev %s is not the hash of the receipt before it (%s): the chain is torn here", orNone(r.Prev), orNone(prev))
		case r.Node != id:
			row.Check = fmt.Sprintf("it is of node %q, not %q", r.Node, id)
		}
		out[i] = row
		prev = r.Hash
		if r.Status != receipt.Failed {
			prevOK = r
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// producerReceipts indexes the receipts of node id's producers by hash.
func (w *World) producerReceipts(id string) map[string]*receipt.Receipt {
	out := map[string]*receipt.Receipt{}
	seen := map[string]bool{}
	for _, e := range w.in[id] {
		if seen[e.Producer] {
			continue
		}
		seen[e.Producer] = true
		rs, err := w.st.CheckedLedger(e.Producer)
		if err != nil {
			continue // the producer's own page says why; its receipts explain nothing
		}
		for _, r := range rs {
			out[r.Hash] = r
		}
	}
	return out
}

// wake explains receipt r of node id: for an input wake, each ref's
// producer receipt and the inputs from it whose fingerprints moved
// against prevOK, the node's last non-failed receipt before r.
func (w *World) wake(id string, r, prevOK *receipt.Receipt, producers map[string]*receipt.Receipt) Wake {
	wk := Wake{Source: r.Wake.Source}
	if r.Wake.Source == receipt.External {
		wk.Events = r.Events
		return wk
	}
	for _, ref := range r.Wake.Refs {
		c := Cause{Receipt: ref}
		if pr := producers[ref]; pr != nil {
			c.Found, c.Producer, c.Drain, c.Seq, c.Moved = true, pr.Node, pr.Drain, pr.Seq, pr.Diff.Moved
			c.Inputs = w.movedInputs(id, pr.Node, r, prevOK)
		}
		wk.Causes = append(wk.Causes, c)
	}
	return wk
}

// movedInputs are the input keys of node id from producer whose
// fingerprints in r differ from those in prev (all of them without
// prev).
func (w *World) movedInputs(id, producer string, r, prev *receipt.Receipt) []string {
	var out []string
	for _, e := range w.in[id] {
		if e.Producer != producer {
			continue
		}
		key := reconcile.EdgeKey(e)
		for k, fp := range r.Inputs {
			if k != key && !strings.HasPrefix(k, key+"[") {
				continue
			}
			if prev == nil || prev.Inputs[k] != fp {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// VersionDiff is the field-level diff of node id's committed versions
// from and to (addresses as receipts name them), each read and checked
// against its address.
func (w *World) VersionDiff(id, from, to string) ([]Change, error) {
	w.mu.Lock()
	st := w.st
	w.mu.Unlock()
	if st == nil {
		return nil, fmt.Errorf("%s holds no world model yet", w.StateDir)
	}
	a, err := version(st, id, from)
	if err != nil {
		return nil, err
	}
	b, err := version(st, id, to)
	if err != nil {
		return nil, err
	}
	return Diff(a, b), nil
}

func version(st *store.Store, id, v string) (any, error) {
	if hex, ok := strings.CutPrefix(v, "sha256:"); !ok || len(hex) != 64 || strings.Trim(hex, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%q is no version address (sha256:HEX, as a receipt names it)", v)
	}
	x, err := st.Version(id, v)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("node %s has no version %s", id, v)
	}
	return x, err
}

// TruthJSON is v indented canonically, for a page.
func TruthJSON(v any) string {
	b, err := canon.Indent(v)
	if err != nil {
		return fmt.Sprintf("(not JSON: %v)", err)
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
