package store

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
