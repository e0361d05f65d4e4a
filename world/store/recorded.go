package store

import (
	"fmt"
	"sync"
)

// What the readers compare with the drain index (decided; FORMAT.md,
// "Crash repair"). A node directory put back from an older copy (its
// ledger, head and versions consistent with each other), or removed
// whole, checks by itself: only the index, appended to after the commits
// it records, says that the node's ledger once ended later. A drain
// refuses such a node (Extend), and so does every reader that shows
// receipts or truths (Receipts, Show, CheckedLedger, CheckedLast,
// CheckedTruth, and through them prose world show, prose receipts, the
// MCP tools, prose serve's HTTP API and the world pages): the problem is
// a *DamageError naming the ledger, the node and the fix, as a ledger
// cut from its head is. Decided: refused, not shown marked as stale.
// The notes of a truth that is not current (the index's Scan.Spec, a
// contract moved since, a render failed since) say of the store's own
// last truth that the project's files have moved past it; the truth of a
// directory put back is not the store's last one at all, and one removed
// has none left to show.
//
// A reader reads the index before the node's ledger: a writer appends
// an index line only after the ledger (and its head) it records are
// durable, so a ledger read after the index holds every receipt the
// index names, unless it was put back. The index is read again only
// when its identity moved (a stat per check); a drain never reads it
// this way (Extend compares the entries it loads anyway, at no cost).

// recorded is the drain index file as readers read it: the last receipt
// each node's entry records (nodes whose entry records none are absent),
// and the file's identity when read.
type recorded struct {
	mu   sync.Mutex
	id   fileID
	last map[string]movedEntry
}

// recordedLast is, per node, the last receipt the drain index file
// records (re-read only when the file's identity moved), and that
// identity. A line that does not read ends the file, as for a drain.
func (s *Store) recordedLast() (map[string]movedEntry, fileID) {
	r := &s.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	id := statID(s.IndexPath())
	if r.last != nil && id == r.id {
		return r.last, id
	}
	last := map[string]movedEntry{}
	if id.Size >= 0 {
		if b, err := readSized(s.IndexPath(), id.Size); err == nil {
			eachEntry(b, func(e *indexEntry) {
				if hash, _, drain, ok := e.summary(); ok {
					last[e.Node] = movedEntry{hash, drain}
				} else {
					delete(last, e.Node) // the last line of a node wins
				}
			})
		}
	}
	r.id, r.last = id, last
	return last, id
}

// indexMoved reports whether the index file is no longer the one of
// identity id.
func (s *Store) indexMoved(id fileID) bool { return statID(s.IndexPath()) != id }

// againstIndex is the problem of node's ledger, checked, when the drain
// index file (read before it: recs) records a later receipt than the
// ledger ends with: at is the drain of its last receipt, has whether it
// has one (false for a node without a ledger, or without a directory).
func (s *Store) againstIndex(node string, recs map[string]movedEntry, at int, has bool) *Problem {
	m, ok := recs[node]
	switch {
	case !ok:
		return nil
	case !has:
		p := s.lostProblem(node, m.drain)
		return &p
	case m.drain <= at:
		return nil
	}
	p := s.restoredProblem(node, at, m.hash, m.drain)
	return &p
}

// lostProblem is the problem of node, whose directory is gone (or holds
// no ledger), when the drain index records a receipt of drain for it.
func (s *Store) lostProblem(node string, drain int) Problem {
	return Problem{s.LedgerPath(node), fmt.Sprintf("missing: the drain index (%s) records a receipt of drain %d for node %s, but its directory is gone or holds no ledger: its history is lost, and no truth of it is current; restore the directory from a backup, or take the loss with prose receipts repair --accept %s (the next drain then renders the node anew, if the project still has it; a node taken out of the project needs the same)", s.IndexPath(), drain, node, node)}
}
