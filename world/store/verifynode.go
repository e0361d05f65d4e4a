package store

import "github.com/proselang/prose/world/receipt"

// VerifyNode is Verify of one node: its ledger whole (chain, signatures,
// head record), the versions its receipts name, its published files
// against the last receipt's version, and its ledger against the drain
// index, as the readers compare it (recorded.go: a directory put back,
// or removed while the index records receipts of it, is a problem named
// by its ledger). facets are the node's declared facets (nil: those the
// last receipt fingerprints).
func (s *Store) VerifyNode(node string, facets []string) ([]Problem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, err
	}
	var f func(string) []string
	if facets != nil {
		f = func(string) []string { return facets }
	}
	ps, _ := s.verifyAgainstIndex(node, f)
	return ps, nil
}

// VerifyNodeLedger is VerifyNode, also returning the node's receipts
// from the very bytes it checked (nil when the ledger did not read): a
// reader that shows them beside the problems shows what was verified, not
// a ledger read again after.
func (s *Store) VerifyNodeLedger(node string, facets []string) ([]Problem, []*receipt.Receipt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, nil, err
	}
	var f func(string) []string
	if facets != nil {
		f = func(string) []string { return facets }
	}
	ps, rs := s.verifyAgainstIndex(node, f)
	if ds := s.durations(node); ds != nil {
		for _, r := range rs {
			if ms, ok := ds[r.Hash]; ok && r.Cost.DurationMS == 0 {
				r.Cost.DurationMS = ms
			}
		}
	}
	return ps, rs, nil
}

// verifyAgainstIndex is verifyNodeLedger of node, with its ledger
// compared with the drain index read before it (recorded.go); rs is nil
// when that finds a problem. s.mu is held.
func (s *Store) verifyAgainstIndex(node string, facets func(string) []string) ([]Problem, []*receipt.Receipt) {
	for attempt := 0; ; attempt++ {
		recs, at := s.recordedLast()
		ps, rs := s.verifyNodeLedger(escape(node), facets)
		for _, p := range ps {
			if p.File == s.LedgerPath(node) || p.File == s.HeadPath(node) {
				return ps, rs // the ledger itself does not check
			}
		}
		last := 0
		if len(rs) > 0 {
			last = rs[len(rs)-1].Drain
		}
		p := s.againstIndex(node, recs, last, len(rs) > 0)
		if p == nil {
			return ps, rs
		}
		if attempt < 3 && s.indexMoved(at) {
			continue
		}
		return append([]Problem{*p}, ps...), nil
	}
}
