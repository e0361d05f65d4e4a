package store

import (
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
	}
	if err := s.trustLedgers(nodes); err != nil {
		return nil, err
	}
	var out []*receipt.Receipt
	for _, n := range nodes {
		rs, err := s.Ledger(n)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
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
// node whose ledger or published files do not check (Trust) is refused.
func (s *Store) Show(node, facet, version string) (any, error) {
	if err := s.Trust(node); err != nil {
		return nil, err
	}
	var v any
	var err error
	if version != "" {
		v, err = s.Version(node, version)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("node %s has no version %s in %s%s", node, version, s.Dir, s.nodeHint(node))
		}
	} else {
		var ok bool
		v, ok, err = s.Published(node)
		if err == nil && !ok {
			err = fmt.Errorf("node %s has published no truth in %s%s", node, s.Dir, s.nodeHint(node))
		}
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
