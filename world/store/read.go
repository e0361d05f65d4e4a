package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
)

// This file holds the readers that prose world show, prose receipts and
// the MCP tools world and receipts share, so each of them is a thin layer.

// Find opens the state directory flag names, or, when flag is "", the
// nearest .prose/world at or above dir.
func Find(flag, dir string) (*Store, error) {
	if flag != "" {
		if _, err := os.Stat(filepath.Join(flag, "FORMAT")); err != nil {
			if err := formatLost(flag); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s is no world model state directory (no FORMAT file): run prose run DIR first", flag)
		}
		return Open(flag)
	}
	for {
		p := filepath.Join(dir, ".prose", "world")
		if _, err := os.Stat(filepath.Join(p, "FORMAT")); err == nil {
			return Open(p)
		}
		if err := formatLost(p); err != nil {
			return nil, err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil, errors.New("no .prose/world here or above: run prose run DIR first, or name it with --state DIR")
		}
		dir = up
	}
}

// Receipts reads every ledger (or node's, when node is not ""), in
// ledger order: by drain, then seq. A node without receipts is an error
// that names the nearest node that has some. Each ledger is checked
// first, as a drain checks it (from its head record on): a torn, cut,
// edited or otherwise-signed ledger is refused with a *DamageError
// naming it, rather than listed (its receipts, their counts and costs,
// are what the ledger no longer vouches for).
func (s *Store) Receipts(node string) ([]*receipt.Receipt, error) {
	all, err := s.nodeIDs()
	if err != nil {
		return nil, err
	}
	nodes := all
	if node != "" {
		nodes = []string{node}
	} else {
		// The nodes the drain index records receipts of and whose
		// directories are gone: each a problem (checkedLedger), never a
		// list that leaves them out as if they had never been.
		recs, _ := s.recordedLast()
		have := make(map[string]bool, len(all))
		for _, n := range all {
			have[n] = true
		}
		var gone []string
		for n := range recs {
			if !have[n] {
				gone = append(gone, n)
			}
		}
		sort.Strings(gone)
		nodes = append(append([]string(nil), all...), gone...)
	}
	var out []*receipt.Receipt
	var ps []Problem
	s.mu.Lock()
	err = s.reload()
	for _, n := range nodes {
		if err != nil {
			break
		}
		var rs []*receipt.Receipt
		var p []Problem
		rs, p, err = s.checkedLedger(n)
		ps = append(ps, p...)
		out = append(out, rs...)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		return nil, &DamageError{Dir: s.Dir, Problems: ps}
	}
	if node != "" && len(out) == 0 {
		return nil, fmt.Errorf("node %s has no receipts in %s%s", node, s.Dir, didYouMean(node, all))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Drain != out[j].Drain {
			return out[i].Drain < out[j].Drain
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
}

// Show is node's published truth, or the committed version when version
// is not "", narrowed to its member facet when facet is not "". Its
// errors say what there is instead: the nearest node, the members. A
// node whose ledger or published files do not check (Trust) is refused;
// the truth shown is the version its checked last receipt names.
func (s *Store) Show(node, facet, version string) (any, error) {
	last, v, err := s.trustedLast(node)
	if err != nil {
		return nil, err
	}
	if version != "" {
		v, err = s.Version(node, version)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("node %s has no version %s in %s%s", node, version, s.Dir, s.nodeHint(node))
		}
	} else if last == nil || last.Version == "" {
		err = fmt.Errorf("node %s has published no truth in %s%s", node, s.Dir, s.nodeHint(node))
	}
	if err != nil {
		return nil, err
	}
	if facet == "" {
		return v, nil
	}
	m, _ := v.(map[string]any)
	x, ok := m[facet]
	if !ok {
		var names []string
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("the truth of %s has no member %q (members: %s)", node, facet, strings.Join(names, ", "))
	}
	return x, nil
}

// nodeHint is a did-you-mean for a node the store has no ledger of.
func (s *Store) nodeHint(node string) string {
	if _, err := os.Stat(s.LedgerPath(node)); err == nil {
		return ""
	}
	all, _ := s.nodeIDs()
	return didYouMean(node, all)
}

// nodeIDs are the ids of the nodes Nodes lists by directory name (an
// inline node's "FILE-ID/name" is kept in "FILE-ID%2Fname"): what Ledger
// and the messages take.
func (s *Store) nodeIDs() ([]string, error) {
	names, err := s.Nodes()
	for i, name := range names {
		names[i] = unescape(name)
	}
	return names, err
}

func didYouMean(name string, cands []string) string {
	if best := graph.Nearest(name, cands); best != "" {
		return "; did you mean " + best + "?"
	}
	if len(cands) > 0 {
		return " (nodes: " + strings.Join(cands, ", ") + ")"
	}
	return ""
}

// CheckedLedger is node's receipts in order (none when it has no
// ledger), read as a drain reads them: the ledger is checked against its
// head record (the receipts after the head one by one, as Extend checks
// them), and the receipts returned are those of the very bytes checked.
// A ledger that does not check is a *DamageError naming its files, never
// receipts. This is what every reader that shows receipts (prose serve's
// HTTP API, the world pages) reads through.
//
// A writer beside the reader (decided): the check reads head.json before
// the ledger, and a writer writes the ledger before its head, so a
// commit seen half-done is a ledger a receipt ahead of its head, chained
// to it, which checks; never a pair that looks forged. Within one process
// s's lock keeps a commit of s whole besides.
func (s *Store) CheckedLedger(node string) ([]*receipt.Receipt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, err
	}
	rs, ps, err := s.checkedLedger(node)
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		return nil, &DamageError{Dir: s.Dir, Problems: ps}
	}
	return rs, nil
}

// checkedLedger is CheckedLedger with s.mu held: the problems found, or
// the receipts of the bytes checked (nil for a node with no directory).
func (s *Store) checkedLedger(node string) ([]*receipt.Receipt, []Problem, error) {
	rs, ps, _, err := s.checkedLedgerBytes(node)
	return rs, ps, err
}

// checkedLedgerBytes is checkedLedger, also returning the ledger's bytes
// it checked. The ledger is compared with the drain index too, read
// before it (recorded.go): one that ends before the receipt the index
// records as the node's last (an older copy put back), or a node whose
// directory or ledger is gone while the index records a receipt of it,
// is a problem, never receipts shown as the node's.
func (s *Store) checkedLedgerBytes(node string) ([]*receipt.Receipt, []Problem, []byte, error) {
	for attempt := 0; ; attempt++ {
		recs, at := s.recordedLast()
		rs, ps, b, err := s.checkedLedgerOnce(node)
		if err != nil || len(ps) > 0 {
			return nil, ps, b, err
		}
		last := 0
		if len(rs) > 0 {
			last = rs[len(rs)-1].Drain
		}
		if p := s.againstIndex(node, recs, last, len(rs) > 0); p != nil {
			if attempt < 3 && s.indexMoved(at) {
				continue // an index rewritten since (a repair --accept): read both again
			}
			return nil, []Problem{*p}, b, nil
		}
		return rs, nil, b, nil
	}
}

// checkedLedgerOnce is checkedLedgerBytes but for the drain index.
func (s *Store) checkedLedgerOnce(node string) ([]*receipt.Receipt, []Problem, []byte, error) {
	name := escape(node)
	if _, err := os.Lstat(filepath.Join(s.Dir, name)); err != nil {
		return nil, nil, nil, nil // no such node: the reader says so
	}
	_, ps, b := s.checkNodeBytes(name, false)
	if len(ps) > 0 {
		return nil, ps, b, nil
	}
	rs, err := parseLedger(s.LedgerPath(node), b, 1)
	if err != nil {
		return nil, nil, b, err
	}
	if ds := s.durations(node); ds != nil {
		for _, r := range rs {
			if ms, ok := ds[r.Hash]; ok && r.Cost.DurationMS == 0 {
				r.Cost.DurationMS = ms
			}
		}
	}
	return rs, nil, b, nil
}

// CheckedLast is node's last receipt (nil: none), checked as
// CheckedLedger checks the ledger: what a reader shows as the node's
// standing, and, by its version, the truth it publishes.
func (s *Store) CheckedLast(node string) (*receipt.Receipt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		recs, at := s.recordedLast()
		r, err := s.checkedLastOnce(node)
		if err != nil {
			return nil, err
		}
		last := 0
		if r != nil {
			last = r.Drain
		}
		if p := s.againstIndex(node, recs, last, r != nil); p != nil {
			if attempt < 3 && s.indexMoved(at) {
				continue
			}
			return nil, &DamageError{Dir: s.Dir, Problems: []Problem{*p}}
		}
		return r, nil
	}
}

// checkedLastOnce is CheckedLast but for the drain index; s.mu is held.
func (s *Store) checkedLastOnce(node string) (*receipt.Receipt, error) {
	name := escape(node)
	if _, err := os.Lstat(filepath.Join(s.Dir, name)); err != nil {
		return nil, nil // no such node: the reader says so
	}
	_, ps, b := s.checkNodeBytes(name, false)
	if len(ps) > 0 {
		return nil, &DamageError{Dir: s.Dir, Problems: ps}
	}
	line, first := bytes.TrimRight(b, "\n"), 1
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		line, first = line[i+1:], bytes.Count(line[:i], []byte("\n"))+2
	}
	rs, err := parseLedger(s.LedgerPath(node), line, first)
	if err == nil && len(rs) == 0 {
		rs, err = parseLedger(s.LedgerPath(node), b, 1) // a last line of blanks
	}
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	r := rs[len(rs)-1]
	if ms, ok := s.durations(node)[r.Hash]; ok && r.Cost.DurationMS == 0 {
		r.Cost.DurationMS = ms
	}
	return r, nil
}

// CheckedTruth is the truth node's last receipt leaves published (ok
// false: none yet), read from the version that receipt names, by its
// address, once the ledger checks (CheckedLast). A reader that shows a
// node's truth reads it so: truth.json is derived, and one a commit has
// not rewritten yet, or one edited, is not what the ledger vouches for.
func (s *Store) CheckedTruth(node string) (v any, ok bool, err error) {
	r, err := s.CheckedLast(node)
	if err != nil || r == nil || r.Version == "" {
		return nil, false, err
	}
	v, err = s.Version(node, r.Version)
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}
