package store

import "github.com/proselang/prose/world/receipt"

// VerifyNode is Verify of one node: its ledger whole (chain, signatures,
// head record), the versions its receipts name, and its published files
// against the last receipt's version. facets are the node's declared
// facets (nil: those the last receipt fingerprints).
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
	return s.verifyNode(escape(node), f), nil
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
	ps, rs := s.verifyNodeLedger(escape(node), f)
	if ds := s.durations(node); ds != nil {
		for _, r := range rs {
			if ms, ok := ds[r.Hash]; ok && r.Cost.DurationMS == 0 {
				r.Cost.DurationMS = ms
			}
		}
	}
	return ps, rs, nil
}
