package store

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// Problem is one thing a check found wrong, naming the file.
type Problem struct {
	File string
	Msg  string
}

func (p Problem) String() string { return p.File + ": " + p.Msg }

// DamageError is a drain's refusal to write to a store whose check found
// problems: it names each file, and the repair to run.
type DamageError struct {
	Dir      string
	Problems []Problem
}

func (e *DamageError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is damaged; nothing more is written to it or shown from it until it is repaired:", e.Dir)
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.String())
	}
	fmt.Fprintf(&b, "\nprose receipts verify --state %s reports every problem; prose receipts repair --state %s rebuilds what the ledgers still vouch for (published files, head records); a cut or edited ledger is restored from a backup, or taken as it is with repair --accept NODE", e.Dir, e.Dir)
	return b.String()
}

// Nodes lists the node directories of the store (by escaped name),
// sorted: every directory that holds a ledger, a head record or versions,
// whatever kind of file it is (a named pipe in place of a ledger is a
// node the checks report, not one they skip).
func (s *Store) Nodes() ([]string, error) {
	return s.nodes(func(string) bool { return false })
}

// nodes is Nodes, taking the directories known by known as nodes
// without a look inside.
func (s *Store) nodes(known func(name string) bool) ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !e.IsDir() {
			// A link to a directory is a node directory like any: its
			// ledger is checked as the node's (one linked to another
			// node's directory is refused by the node its receipts name),
			// never skipped while a drain writes through it.
			st, err := os.Stat(filepath.Join(s.Dir, e.Name()))
			if e.Type()&fs.ModeSymlink == 0 || err != nil || !st.IsDir() {
				continue
			}
		}
		if known(e.Name()) {
			out = append(out, e.Name())
			continue
		}
		for _, f := range []string{"receipts.jsonl", "head.json", "versions"} {
			if _, err := os.Lstat(filepath.Join(s.Dir, e.Name(), f)); err == nil {
				out = append(out, e.Name())
				break
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// checkKey checks who signed r against the trusted key and the store's
// signer (the signature itself is Check's).
func (s *Store) checkKey(r *receipt.Receipt) error {
	fp := r.KeyFingerprint()
	switch {
	case s.Trusted != nil && r.Sig == "":
		return fmt.Errorf("it is not signed, and the trusted key %s wants every receipt signed", receipt.Fingerprint(s.Trusted))
	case s.Trusted != nil && fp != receipt.Fingerprint(s.Trusted):
		return fmt.Errorf("it is signed by key %s, not by the trusted key %s", orMalformed(fp), receipt.Fingerprint(s.Trusted))
	case s.signer != "" && r.Sig == "":
		return fmt.Errorf("it is not signed, but the store was created signed by key %s (its FORMAT file): an unsigned receipt here is a forgery or a mistake", s.signer)
	case s.signer != "" && fp != s.signer:
		return fmt.Errorf("it is signed by key %s, not by the store's key %s (its FORMAT file)", orMalformed(fp), s.signer)
	case s.signer == "" && s.heads && r.Sig != "":
		return fmt.Errorf("it is signed (key %s), but the store was created unsigned (its FORMAT file names no signer)", orMalformed(fp))
	}
	return nil
}

func orMalformed(fp string) string {
	if fp == "" {
		return "(none, or malformed)"
	}
	return fp
}

// checkChain checks rs, the receipts of node's ledger p from number
// first on, chained from prev: each by its hash and signature, its key,
// its node and its prev.
func (s *Store) checkChain(p, node string, rs []*receipt.Receipt, prev string, first int) *Problem {
	for i, r := range rs {
		err := r.Check(s.Trusted)
		if err == nil {
			err = s.checkKey(r)
		}
		if err == nil && r.Node != node {
			err = fmt.Errorf("it is of node %q, not %q", r.Node, node)
		}
		if err == nil && r.Prev != prev {
			err = fmt.Errorf("its prev %q is not the hash of the receipt before it (%q): the chain is torn", r.Prev, prev)
		}
		if err != nil {
			return &Problem{p, fmt.Sprintf("receipt %d (%s %s): %v", first+i, r.Status, r.Hash, err)}
		}
		prev = r.Hash
	}
	return nil
}

// checkNode checks the ledger of the node directory name against its
// head record. Incrementally (full false), when the ledger still begins
// with the head's bytes, only the receipts after them are read and
// checked, and rs holds those; otherwise every receipt is, and rs holds
// them all.
func (s *Store) checkNode(name string, full bool) (rs []*receipt.Receipt, ps []Problem) {
	rs, ps, _ = s.checkNodeBytes(name, full)
	return rs, ps
}

// checkNodeBytes is checkNode, also returning the ledger's bytes it
// checked.
func (s *Store) checkNodeBytes(name string, full bool) (rs []*receipt.Receipt, ps []Problem, b []byte) {
	node := unescape(name)
	dir := filepath.Join(s.Dir, name)
	lp, hp := filepath.Join(dir, "receipts.jsonl"), filepath.Join(dir, "head.json")
	// The head first: it is written after the ledger, so a ledger read
	// after it is never behind it, even while a worker of the same
	// drain on Temporal commits beside this check (a shared lock).
	h, err := readHead(hp)
	if err != nil {
		return nil, []Problem{{hp, errText(err, hp)}}, nil
	}
	b, err = readFile(lp)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []Problem{{lp, errText(err, lp)}}, nil
	}
	if err == nil {
		s.ledgerReads.Add(1)
	}
	if h == nil && len(bytes.TrimSpace(b)) > 0 {
		// A node's first commit writes a head of 0 receipts, then the
		// ledger: a reader beside it that read no head and then a
		// ledger finds that head now.
		if h, err = readHead(hp); err != nil {
			return nil, []Problem{{hp, errText(err, hp)}}, nil
		}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		// A kill before a node's first commit leaves versions and no
		// ledger, with (since 1.1) a head of 0 receipts.
		_, lerr := os.Lstat(lp)
		switch n := countVersions(dir); {
		case h != nil && h.Receipts > 0:
			return nil, []Problem{{lp, fmt.Sprintf("empty or missing, but its head record (head.json) names %d receipts, the last %s: the ledger was emptied or lost; restore it from a backup", h.Receipts, h.Hash)}}, b
		case n > 0 && h == nil && (lerr == nil || s.heads):
			return nil, []Problem{{lp, fmt.Sprintf("empty or missing, but the node has %d committed versions: its receipts were lost; restore the ledger from a backup", n)}}, b
		}
		return nil, nil, b
	}
	extends := h != nil && int64(len(b)) >= h.Size && digest(b[:h.Size]) == h.Digest
	edited := extends && !h.vouches(b)
	if !full && extends && !edited && s.checkpoint(h) {
		first := bytes.Count(b[:h.Size], []byte("\n")) + 1
		// The bytes the head vouches for are not read again, but their
		// last receipt is the node's: a node directory swapped with
		// another's (or copied from it) brings a ledger and a head that
		// agree, of the wrong node.
		if r := h.last(b); r != nil && r.Node != node {
			return nil, []Problem{{lp, fmt.Sprintf("receipt %d (%s %s): it is of node %q, not %q: the directory holds another node's ledger (swapped or copied); restore %s from a backup", h.Receipts, r.Status, r.Hash, r.Node, node, dir)}}, b
		}
		tail, err := parseLedger(lp, b[h.Size:], first)
		if err != nil {
			return nil, []Problem{{lp, strings.TrimPrefix(err.Error(), lp+":")}}, b
		}
		if p := s.checkChain(lp, node, tail, h.Hash, h.Receipts+1); p != nil {
			return nil, []Problem{*p}, b
		}
		return tail, nil, b
	}
	rs, err = parseLedger(lp, b, 1)
	if err != nil {
		return nil, []Problem{{lp, strings.TrimPrefix(err.Error(), lp+":")}}, b
	}
	if p := s.checkChain(lp, node, rs, "", 1); p != nil {
		return rs, []Problem{*p}, b
	}
	accept := " or take it as it is with prose receipts repair --accept " + node
	if h != nil && (s.signer != "" || s.Trusted != nil) && !s.checkpoint(h) {
		return rs, append(ps, Problem{hp, "not signed by the store's key: a head record rewritten without the key (receipts cut from the ledger would go unseen); restore it, or take the ledger as it is with prose receipts repair --sign-key FILE --accept " + node}), b
	}
	switch {
	case edited:
		got, lastHash := lines(b[:h.Size]), ""
		if got > 0 && got <= len(rs) {
			lastHash = ", the last " + rs[got-1].Hash
		}
		ps = append(ps, Problem{hp, fmt.Sprintf("names %d receipts, the last %q, but the %d bytes of the ledger it vouches for (their digest matches) hold %d%s: the head record was edited; restore it,%s",
			h.Receipts, h.Hash, h.Size, got, lastHash, accept)})
	case h == nil && s.heads:
		ps = append(ps, Problem{hp, "missing: without it receipts cut from the ledger's end go unseen; restore it," + accept})
	case h == nil:
	case len(rs) < h.Receipts:
		ps = append(ps, Problem{lp, fmt.Sprintf("holds %d receipts, but its head record (head.json) names %d, the last %s: receipts were cut from its end (an older copy restored?); restore the ledger from a backup,%s", len(rs), h.Receipts, h.Hash, accept)})
	case h.Receipts > 0 && rs[h.Receipts-1].Hash != h.Hash:
		ps = append(ps, Problem{lp, fmt.Sprintf("receipt %d is not the one its head record (head.json) names, %s: the ledger was rewritten after it was committed; restore it from a backup,%s", h.Receipts, h.Hash, accept)})
	case !extends:
		ps = append(ps, Problem{lp, "its bytes are not those its head record (head.json) was written for, though its receipts still check: it was rewritten after it was committed; restore it from a backup," + accept})
	}
	return rs, ps, b
}

// checkpoint reports whether a drain may check from h on: always in an
// unsigned store, and in a signed one (or with a trusted key) when h is
// signed by that key.
func (s *Store) checkpoint(h *head) bool {
	switch {
	case s.Trusted != nil:
		return h.signedBy(receipt.Fingerprint(s.Trusted))
	case s.signer != "":
		return h.signedBy(s.signer)
	}
	return true
}

// errText is err's message, naming p once.
func errText(err error, p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(strings.Replace(err.Error(), " "+p, "", 1), p), ": ")
}

func countVersions(dir string) int {
	es, _ := os.ReadDir(filepath.Join(dir, "versions"))
	n := 0
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".json") {
			n++
		}
	}
	return n
}

// Extend checks, before a drain writes, what the drain extends: the
// signing key (sign; nil for an unsigned drain) against the key the store
// was created with and the trusted key, and each ledger against its head
// record (the receipts after the head one by one). It refuses a damaged
// store with a *DamageError. The first signed drain of a store that holds
// no receipt, or only receipts signed by that key, records the key's
// fingerprint in FORMAT; a store of format 1.0 gets its head records.
func (s *Store) Extend(sign ed25519.PrivateKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// FORMAT again: it may have been read before the lock was taken.
	if err := s.reload(); err != nil {
		return err
	}
	s.sign = sign
	var pub ed25519.PublicKey
	if sign != nil {
		pub = sign.Public().(ed25519.PublicKey)
	}
	if err := s.checkSigner(pub); err != nil {
		return err
	}
	pin := pub != nil && s.signer == ""
	full := pin || !s.heads
	if full {
		s.dropIndex()
	}
	s.setTrust()
	if !full && s.wholeChecked() {
		// Every node was checked by this Store, which alone has written
		// since (the lock): what it appends is checked as it appends.
		return nil
	}
	unchanged := map[string]bool{}
	names, err := s.nodes(func(name string) bool {
		unchanged[name] = !full && s.unchanged(unescape(name))
		return unchanged[name]
	})
	if err != nil {
		return err
	}
	var ps []Problem
	all := map[string][]*receipt.Receipt{}
	for _, name := range names {
		if unchanged[name] {
			continue // as checked when its index entry was written
		}
		rs, p, b := s.checkNodeBytes(name, full)
		if len(p) == 0 {
			p = s.putBack(unescape(name), rs, b)
		}
		ps = append(ps, p...)
		all[name] = rs
	}
	// A node directory removed whole: the index entries loaded anyway
	// against the directories just listed, no file read (lostNodes).
	ps = append(ps, s.lostNodes(names)...)
	if len(ps) > 0 {
		return &DamageError{Dir: s.Dir, Problems: ps}
	}
	if !full {
		s.setWhole()
	}
	if full {
		if err := s.sameSigner(names, all, pub); err != nil {
			return err
		}
	}
	if !full {
		return nil
	}
	if pin {
		s.signer = receipt.Fingerprint(pub)
	}
	if !s.heads {
		for _, name := range names {
			if rs := all[name]; len(rs) > 0 {
				b, err := readFile(filepath.Join(s.Dir, name, "receipts.jsonl"))
				if err != nil {
					return err
				}
				if err := s.writeHeadIn(filepath.Join(s.Dir, name), b, rs[len(rs)-1].Hash); err != nil {
					return err
				}
			}
		}
		s.heads = true
	}
	return s.writeFormat()
}

// Look readies s for a reader that does not hold the directory's lock and
// writes nothing (reconcile.Stale): FORMAT is read again and the index
// entries are believed as Standing checks them against the files, under
// s's trusted key. Unlike Extend it checks no ledger as a whole and pins
// no key.
func (s *Store) Look() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return err
	}
	s.setTrust()
	return nil
}

func (s *Store) reload() error {
	o, err := Open(s.Dir)
	if err != nil {
		return err
	}
	s.signer, s.heads = o.signer, o.heads
	return nil
}

// Trust checks what a reader is about to show of node: its ledger (from
// its head record on), and that the published files are its last
// receipt's version. A problem is a *DamageError naming the file.
func (s *Store) Trust(node string) error {
	_, _, err := s.trustedLast(node)
	return err
}

// trustedLast is Trust, returning the last receipt it checked (nil: the
// node has none, or no directory) and its version's truth (decided): a
// reader shows that version, read by its address from the ledger's very
// bytes checked, not truth.json read again after. The published files
// are checked as a drain checks them before it repairs them: each the
// last receipt's version, or, as a commit in progress leaves them
// (written just after the ledger), absent or the version before's; any
// other content was edited, and is refused.
//
// A writer beside the reader can also be ahead of it: its next commit
// published after the reader read the ledger. So published files that do
// not match are damage only once the ledger, read again after them, is
// the one checked (a writer writes the ledger before it publishes);
// otherwise the check starts again from the ledger as it is now.
func (s *Store) trustedLast(node string) (*receipt.Receipt, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, nil, err
	}
	for attempt := 0; ; attempt++ {
		rs, ps, b, err := s.checkedLedgerBytes(node)
		if err != nil {
			return nil, nil, err
		}
		if len(ps) > 0 {
			return nil, nil, &DamageError{Dir: s.Dir, Problems: ps}
		}
		if len(rs) == 0 || rs[len(rs)-1].Version == "" {
			return lastOf(rs), nil, nil
		}
		last := rs[len(rs)-1]
		want, err := s.Version(node, last.Version)
		if err != nil {
			return nil, nil, err
		}
		var before any
		if len(rs) > 1 && rs[len(rs)-2].Version != "" {
			if before, err = s.Version(node, rs[len(rs)-2].Version); err != nil {
				return nil, nil, err
			}
		}
		ps = s.publishedProblems(node, last, want, before, true, s.facetsOf(node, last, nil))
		if len(ps) == 0 {
			return last, want, nil
		}
		if now, err := readFile(s.LedgerPath(node)); err != nil || bytes.Equal(now, b) || attempt == 20 {
			return nil, nil, &DamageError{Dir: s.Dir, Problems: ps}
		}
	}
}

// lastOf is the last of rs, nil when none.
func lastOf(rs []*receipt.Receipt) *receipt.Receipt {
	if len(rs) == 0 {
		return nil
	}
	return rs[len(rs)-1]
}

// checkSigner refuses a drain that would sign otherwise than the store
// and the trusted key want.
func (s *Store) checkSigner(pub ed25519.PublicKey) error {
	if s.Trusted != nil && (pub == nil || !pub.Equal(s.Trusted)) {
		return fmt.Errorf("%s: the trusted key is %s, and a drain must sign with it (--sign-key FILE of that key)", s.Dir, receipt.Fingerprint(s.Trusted))
	}
	if s.signer == "" {
		return nil
	}
	if pub == nil {
		return fmt.Errorf("%s was created signed: its FORMAT file records key %s, and every receipt must be signed by it; give --sign-key FILE of that key", s.Dir, s.signer)
	}
	if fp := receipt.Fingerprint(pub); fp != s.signer {
		return fmt.Errorf("--sign-key is key %s, but %s was created with key %s (its FORMAT file): sign with that key", fp, s.Dir, s.signer)
	}
	return nil
}

// sameSigner checks that the receipts a store of no recorded signer holds
// are all signed as the drain will sign (by pub, or unsigned).
func (s *Store) sameSigner(names []string, all map[string][]*receipt.Receipt, pub ed25519.PublicKey) error {
	want := ""
	if pub != nil {
		want = receipt.Fingerprint(pub)
	}
	for _, name := range names {
		for i, r := range all[name] {
			if fp := r.KeyFingerprint(); fp != want {
				p := filepath.Join(s.Dir, name, "receipts.jsonl")
				if want == "" {
					return fmt.Errorf("%s: receipt %d is signed by key %s: give --sign-key FILE of that key, so that the ledgers stay signed by one key", p, i+1, orMalformed(fp))
				}
				return fmt.Errorf("%s: receipt %d is %s; a store's key is fixed when it is created, and this one was not created with this --sign-key (%s): drain it without --sign-key, or sign a new state directory", p, i+1, signedBy(fp), want)
			}
		}
	}
	return nil
}

func signedBy(fp string) string {
	if fp == "" {
		return "not signed"
	}
	return "signed by key " + fp
}

// Verify checks every ledger whole (chain, signatures against trusted
// when set and against the store's signer, the head record), that every
// version a receipt names exists with the content its address says, and
// that the published files are the last receipt's version. facets gives
// each node's declared facets (nil: those the last receipt
// fingerprints).
func (s *Store) Verify(trusted ed25519.PublicKey, facets func(node string) []string) ([]Problem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return nil, err
	}
	if trusted != nil {
		s.Trusted = trusted
	}
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	var out []Problem
	ledgers := map[string][]*receipt.Receipt{}
	for _, name := range nodes {
		ps, rs := s.verifyNodeLedger(name, facets)
		out = append(out, ps...)
		if len(ps) == 0 {
			ledgers[unescape(name)] = rs
		}
	}
	out = append(out, s.lostNodes(nodes)...)
	return append(out, s.restoredNodes(ledgers)...), nil
}

// putBack is the problem of node's ledger, checked by Extend (rs the
// receipts it read of it, its tail after the head or all of them; b its
// bytes), when it ends before the receipt the drain index recorded as
// its last, of a later drain, in the entry fresh found moved: an older
// copy of the node's directory was put back (decided: a drain refuses
// it as verify reports it, rather than show and extend the old truth).
// The index is appended to after the commits it records are durable
// (the ledger written and synced, then its head, then the index line at
// the end of the drain), so no kill leaves it ahead of a ledger. It
// costs no read: the entry was read with the index, the ledger by the
// check; only the ledger's last line is decoded again when the check
// read nothing after the head.
func (s *Store) putBack(node string, rs []*receipt.Receipt, b []byte) []Problem {
	s.idx.mu.Lock()
	m, ok := s.idx.moved[node]
	s.idx.mu.Unlock()
	if !ok {
		return nil
	}
	at := 0
	if len(rs) > 0 {
		at = rs[len(rs)-1].Drain
	} else {
		at = lastDrain(b)
	}
	if m.drain <= at {
		return nil
	}
	return []Problem{s.restoredProblem(node, at, m.hash, m.drain)}
}

// restoredProblem is the problem of node's ledger, ending at drain at,
// when the index records receipt hash of a later drain as its last.
func (s *Store) restoredProblem(node string, at int, hash string, drain int) Problem {
	return Problem{s.LedgerPath(node), fmt.Sprintf("ends at drain %d, but the drain index (%s) records receipt %s of drain %d as node %s's last: an older copy of the node's directory was put back, and its truth is not the one the node last published; restore the newest copy from a backup, or take it as it is with prose receipts repair --accept %s", at, s.IndexPath(), hash, drain, node, node)}
}

// restoredNodes are the problems of nodes whose ledger checks but ends
// before the receipt the drain index records as its last, of a later
// drain: an older copy of the node's directory (ledger, head and
// versions, consistent with each other) was put back, and the node's
// published truth is one it has since replaced. The index is written
// after the commits it records, so it is never ahead of a ledger a
// drain wrote; decided: verify says so, naming the ledger, as it says a
// directory removed whole. ledgers are the nodes' receipts that checked.
// prose receipts repair --accept NODE takes the ledger as it is (and
// indexes it anew); a drain indexes what it finds too.
func (s *Store) restoredNodes(ledgers map[string][]*receipt.Receipt) []Problem {
	s.idx.mu.Lock()
	s.loadIndex()
	type found struct {
		node, hash string
		drain, at  int
	}
	var fs []found
	for node, rs := range ledgers {
		e := s.idx.nodes[node]
		if e == nil {
			continue
		}
		hash, _, drain, ok := e.summary()
		if !ok {
			continue
		}
		at := 0
		if len(rs) > 0 {
			at = rs[len(rs)-1].Drain
		}
		if drain <= at {
			continue
		}
		held := false
		for _, r := range rs {
			held = held || r.Hash == hash
		}
		if !held {
			fs = append(fs, found{node, hash, drain, at})
		}
	}
	s.idx.mu.Unlock()
	sort.Slice(fs, func(i, j int) bool { return fs[i].node < fs[j].node })
	var out []Problem
	for _, f := range fs {
		out = append(out, s.restoredProblem(f.node, f.at, f.hash, f.drain))
	}
	return out
}

// lostNodes are the problems of nodes the drain index records with a
// receipt whose directory is gone (removed by hand, or lost; or left
// with none of a node's files): their ledgers held history no drain can
// give back, so a verify that passed over them would call a store whole
// that is not, and a drain that rendered them anew would erase the last
// trace of the loss (decided: Extend refuses them, as an older copy put
// back; prose receipts repair --accept NODE takes the loss, and the next
// drain renders the node anew). present are the node directories found
// (escaped names). A store without an index (or whose index lost that
// line) has nothing to say it.
func (s *Store) lostNodes(present []string) []Problem {
	have := make(map[string]bool, len(present))
	for _, name := range present {
		have[unescape(name)] = true
	}
	s.idx.mu.Lock()
	s.loadIndex()
	var lost []string
	drains := map[string]int{}
	for node, e := range s.idx.nodes {
		if _, _, drain, ok := e.summary(); ok && !have[node] {
			lost = append(lost, node)
			drains[node] = drain
		}
	}
	// An entry that fresh found moved (its files gone) was dropped from
	// nodes; what it recorded is kept in moved.
	for node, m := range s.idx.moved {
		if _, ok := drains[node]; !ok && !have[node] && s.idx.nodes[node] == nil {
			lost = append(lost, node)
			drains[node] = m.drain
		}
	}
	s.idx.mu.Unlock()
	sort.Strings(lost)
	var out []Problem
	for _, node := range lost {
		out = append(out, s.lostProblem(node, drains[node]))
	}
	return out
}

// verifyNodeLedger verifies the node directory name as Verify does
// (VerifyNode), but for the drain index, returning the receipts it read
// (nil when the ledger did not read).
func (s *Store) verifyNodeLedger(name string, facets func(string) []string) ([]Problem, []*receipt.Receipt) {
	rs, out := s.checkNode(name, true)
	if len(rs) == 0 {
		return out, rs
	}
	node := unescape(name)
	for i, r := range rs {
		if r.Version == "" {
			continue
		}
		if _, err := s.Version(node, r.Version); err != nil {
			p := s.VersionPath(node, r.Version)
			out = append(out, Problem{p, fmt.Sprintf("version named by receipt %d: %s", i+1, errText(err, p))})
		}
	}
	last := rs[len(rs)-1]
	if last.Version == "" {
		return out, rs
	}
	want, err := s.Version(node, last.Version)
	if err != nil {
		return out, rs
	}
	return append(out, s.publishedProblems(node, last, want, nil, false, s.facetsOf(node, last, facets))...), rs
}

func (s *Store) facetsOf(node string, last *receipt.Receipt, facets func(string) []string) []string {
	if facets != nil {
		return facets(node)
	}
	var fs []string
	for f := range last.Facets {
		if f != "@atomic" {
			fs = append(fs, f)
		}
	}
	sort.Strings(fs)
	return fs
}

// publishedProblems compares node's published files with want, the last
// receipt's version. With residue, a file absent or still holding before
// (the version the receipt before published; nil when none) is what a
// kill between the commit and the publish left, not a problem.
func (s *Store) publishedProblems(node string, last *receipt.Receipt, want, before any, residue bool, facets []string) []Problem {
	var out []Problem
	check := func(p string, w, old any, what string) {
		b, err := readFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !residue {
				out = append(out, Problem{p, "missing: the last receipt publishes " + last.Version})
			}
			return
		case err != nil:
			out = append(out, Problem{p, errText(err, p)})
			return
		}
		v, err := canon.Decode(b)
		if err == nil && sameJSON(v, w) || residue && err == nil && sameJSON(v, old) {
			return
		}
		out = append(out, Problem{p, "edited: it is not " + what + " of version " + last.Version + ", which the last receipt publishes"})
	}
	check(s.TruthPath(node), want, before, "the truth")
	m, _ := want.(map[string]any)
	bm, _ := before.(map[string]any)
	for _, f := range facets {
		check(s.FacetPath(node, f), m[f], bm[f], "member "+f)
	}
	return out
}

// Repair republishes node's truth from its last receipt's version when
// the published files differ from it because a kill came between the
// commit and the publish: each file absent, the last version's or the
// one before's. It reports whether it rewrote anything. A published file
// that is none of these was edited: an error naming it and the repair.
func (s *Store) Repair(node string, facets []string) (bool, error) {
	if s.publishedKnown(node, facets) {
		return false, nil // as the index recorded them: the version's
	}
	if s.unpublished(node) {
		return false, nil // as its ledger says: no truth to compare
	}
	rs, err := s.Ledger(node)
	if err != nil || len(rs) == 0 || rs[len(rs)-1].Version == "" {
		return false, err
	}
	last := rs[len(rs)-1]
	want, err := s.Version(node, last.Version)
	if err != nil {
		return false, err
	}
	if s.publishedMatches(node, want, facets) {
		s.indexPublished(node, facets, want)
		return false, nil
	}
	var before any
	if len(rs) > 1 && rs[len(rs)-2].Version != "" {
		if before, err = s.Version(node, rs[len(rs)-2].Version); err != nil {
			return false, err
		}
	}
	if ps := s.publishedProblems(node, last, want, before, true, facets); len(ps) > 0 {
		return false, &DamageError{Dir: s.Dir, Problems: ps}
	}
	return true, s.Publish(node, want, facets)
}

func (s *Store) publishedMatches(node string, want any, facets []string) bool {
	got, ok, err := s.Published(node)
	if err != nil || !ok || !sameJSON(got, want) {
		return false
	}
	m, _ := want.(map[string]any)
	for _, f := range facets {
		b, err := readFile(s.FacetPath(node, f))
		if err != nil {
			return false
		}
		v, err := canon.Decode(b)
		if err != nil || !sameJSON(v, m[f]) {
			return false
		}
	}
	return true
}

func sameJSON(a, b any) bool {
	x, err1 := canon.Marshal(a)
	y, err2 := canon.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// NodeOfDir is the node id a node directory's name stands for (the store
// writes each byte other than letters, digits, _, -, : and a non-leading
// . as %XX).
func NodeOfDir(name string) string { return unescape(name) }

// NodeID is the id of the node whose directory Nodes names name.
func NodeID(name string) string { return unescape(name) }

func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+3], "%02X", &c); err == nil {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
