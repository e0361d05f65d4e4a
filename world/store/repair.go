package store

import (
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"sort"
)

// RepairAll rebuilds what the ledgers still vouch for, and says what it
// did, one line each: a head record behind its ledger (a kill between the
// commit and the head) is brought up to it; published files that are not
// the last receipt's version are rewritten from it. A ledger whose chain
// does not check is left as it is (restore it from a backup); one that
// checks but is not what its head record says (cut, or rewritten) is
// taken as it is only when its node is in accept, and so is the loss of
// a node directory removed whole that the index records receipts of. In
// a signed store the heads it writes are signed with sign, which must be
// the store's key; without it they are not written. Verify afterwards
// says what is left.
func (s *Store) RepairAll(accept map[string]bool, sign ed25519.PrivateKey) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, err
	}
	if sign != nil {
		if err := s.checkSigner(sign.Public().(ed25519.PublicKey)); err != nil {
			return nil, err
		}
	}
	s.sign = sign
	s.dropIndex()
	names, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	var did []string
	for _, name := range names {
		d, err := s.repairNode(name, accept[unescape(name)])
		if err != nil {
			return did, err
		}
		did = append(did, d...)
	}
	lost, err := s.reindex(names, accept)
	return append(did, lost...), err
}

// reindex indexes anew, from their ledgers, the accepted nodes among
// names: the entry the index kept of such a node may name a later
// receipt than the ledger taken as it is holds, which verify reports as
// an older copy put back. An accepted node that is not among names, and
// that the index records receipts of, lost its directory: its loss is
// taken (decided), its entry written anew with no receipt, so that the
// next drain renders it anew rather than refuse it; one line each says
// so.
func (s *Store) reindex(names []string, accept map[string]bool) ([]string, error) {
	s.idx.mu.Lock()
	s.loadIndex()
	present := map[string]bool{}
	for _, name := range names {
		present[unescape(name)] = true
	}
	var did []string
	var lost []string
	for node := range accept {
		if e := s.idx.nodes[node]; !present[node] && e != nil {
			if _, _, _, ok := e.summary(); ok {
				lost = append(lost, node)
			}
		}
	}
	sort.Strings(lost)
	var err error
	for _, node := range append(lost, nodesOf(names)...) {
		if !accept[node] || err != nil {
			continue
		}
		var hash string
		drain, was := 0, false
		if e := s.idx.nodes[node]; e != nil {
			hash, _, drain, was = e.summary()
		}
		if !present[node] {
			did = append(did, fmt.Sprintf("%s: its directory is gone (or holds none of its files), and with it its history up to drain %d: the loss is taken; the next drain renders the node anew if the project still has it", node, drain))
		}
		delete(s.idx.nodes, node)
		var e *indexEntry
		if e, err = s.standingFromLedger(node); err == nil && present[node] && was {
			if _, _, at, _ := e.summary(); at < drain {
				did = append(did, fmt.Sprintf("%s: its ledger taken as it is, ending at drain %d, though the drain index recorded receipt %s of drain %d as its last (an older copy put back): its history after drain %d is lost", node, at, hash, drain, at))
			}
		}
	}
	s.idx.mu.Unlock()
	if err != nil {
		return did, err
	}
	return did, s.SaveIndex()
}

// nodesOf are the node ids of the directory names names.
func nodesOf(names []string) []string {
	out := make([]string, len(names))
	for i, name := range names {
		out[i] = unescape(name)
	}
	return out
}

func (s *Store) repairNode(name string, accept bool) ([]string, error) {
	node := unescape(name)
	dir := filepath.Join(s.Dir, name)
	lp := filepath.Join(dir, "receipts.jsonl")
	b, err := readFile(lp)
	if err != nil {
		return nil, nil // missing, or not a file: verify names it
	}
	rs, err := parseLedger(lp, b, 1)
	if err != nil || len(rs) == 0 || s.checkChain(lp, node, rs, "", 1) != nil {
		return nil, nil
	}
	h, herr := readHead(filepath.Join(dir, "head.json"))
	last := rs[len(rs)-1]
	extends := herr == nil && h != nil && int64(len(b)) >= h.Size && digest(b[:h.Size]) == h.Digest &&
		h.Receipts <= len(rs) && (h.Receipts == 0 || rs[h.Receipts-1].Hash == h.Hash) && h.vouches(b) &&
		(s.signer == "" && s.Trusted == nil || s.checkpoint(h))
	var did []string
	switch {
	case extends && h.Size == int64(len(b)):
	case extends:
		did = append(did, fmt.Sprintf("%s: head.json brought up to the ledger's %d receipts (a commit whose head record a kill kept from being written)", node, len(rs)))
	case herr == nil && h == nil && !s.heads:
	case accept:
		was := "had none"
		if h != nil {
			was = fmt.Sprintf("named %d, the last %s", h.Receipts, h.Hash)
		}
		did = append(did, fmt.Sprintf("%s: receipts.jsonl taken as it is: %d receipts, the last %s (its head record %s)", node, len(rs), last.Hash, was))
	default:
		return nil, nil
	}
	if len(did) > 0 && (s.signer != "" || s.Trusted != nil) && s.sign == nil {
		// A head of a signed store is signed: without the key it stays
		// as it is, and verify says what is left.
		did = nil
	} else if len(did) > 0 {
		if err := s.writeHeadIn(dir, b, last.Hash); err != nil {
			return did, err
		}
	}
	if last.Version == "" {
		return did, nil
	}
	want, err := s.Version(node, last.Version)
	if err != nil {
		return did, nil // verify names the version
	}
	facets := s.facetsOf(node, last, nil)
	if s.publishedMatches(node, want, facets) {
		return did, nil
	}
	if err := s.Publish(node, want, facets); err != nil {
		return did, err
	}
	files := "truth.json"
	if len(facets) > 0 {
		files += fmt.Sprintf(" and %d facet files", len(facets))
	}
	return append(did, fmt.Sprintf("%s: %s republished from %s, the last receipt's version", node, files, last.Version)), nil
}
