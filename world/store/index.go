package store

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// The drain index (decided; FORMAT.md, "The drain index"): DIR/index.jsonl
// keeps, per node, what a drain's stale scan starts from, so that a drain
// does not read and parse every ledger, version and published file of the
// store: the node's last receipt and last non-failed receipt, the
// identity (size, times, inode) of its ledger, head record and published
// files when they were last checked or written, and the stale scan's
// record of the node (Scan). Each line is one node's entry, the last line
// of a node wins; the file is rewritten whole when it holds more lines
// than twice its nodes.
//
// The index is never trusted over the ledgers: an entry counts only while
// the files it names are still what it recorded (a stat each), so a kill
// anywhere (before or after the index line of a commit), an index lost or
// torn, a ledger restored or edited, each gives an entry that does not
// match, which is rebuilt from the ledger. A Store whose caller holds the
// directory's lock for its whole life (HoldLock: prose serve) trusts the
// entries it checked or wrote itself without a stat: no other writer can
// have moved them.

// fileID tells a file's states apart without reading it; Size -1 is a
// file that does not exist.
type fileID struct {
	Size   int64  `json:"size"`
	Mod    int64  `json:"mod,omitempty"`
	Change int64  `json:"change,omitempty"`
	Ino    uint64 `json:"ino,omitempty"`
}

func statID(p string) fileID {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileID{Size: -1}
	}
	if !fi.Mode().IsRegular() {
		return fileID{Size: -2} // never equal to a recorded one: the checks name it
	}
	return identify(fi)
}

// Scan is the stale scan's record of a node that did not fire, or whose
// receipt settled it: while its last receipt, contract, shape (what its
// memo key reads beside the inputs' values) and its producers' versions
// are those recorded, its memo key is Key and the next drain does not
// re-derive it (unless it is woken). The record is not believed on its
// checksum: the drain takes it only when the node's checked receipts
// vouch for it (reconcile's vouched; FORMAT.md, "Crash repair").
type Scan struct {
	Last     string `json:"last"`
	Contract string `json:"contract"`
	Shape    string `json:"shape"`
	Key      string `json:"key"`
	// Spec is the contract fingerprint of the node's spec alone, with no
	// binding (reconcile.Contract(n, "")): a reader not given the
	// bindings (prose world show) compares it with the spec's now to
	// tell that the contract moved since ("" in a record of before).
	Spec string `json:"spec,omitempty"`
	// Inputs maps each producer of the node to its last receipt's
	// version when the key was derived.
	Inputs map[string]string `json:"inputs"`
}

// Standing is what the index holds of a node: the stale scan's record
// (nil when none holds), the hash, version and drain number of its last
// receipt (Exists: it has one), and, by Receipts, its last receipt and
// its last non-failed one.
type Standing struct {
	Scan          *Scan
	Hash, Version string
	Drain         int
	Exists        bool
	last, lastOK  *receipt.Receipt
	done          bool
	load          func() (*receipt.Receipt, *receipt.Receipt, error)
}

// Receipts is the node's last receipt and last non-failed one (nil:
// none), decoded on the first call.
func (sd *Standing) Receipts() (last, lastOK *receipt.Receipt, err error) {
	if !sd.done {
		if sd.last, sd.lastOK, err = sd.load(); err != nil {
			return nil, nil, err
		}
		sd.done, sd.load = true, nil
	}
	return sd.last, sd.lastOK, nil
}

type indexEntry struct {
	Node      string            `json:"node"`
	Ledger    fileID            `json:"ledger"`
	Head      fileID            `json:"head"`
	Last      *receipt.Receipt  `json:"last,omitempty"`
	LastOK    *receipt.Receipt  `json:"last_ok,omitempty"`
	Published map[string]fileID `json:"published,omitempty"`
	// PublishedFor are the facets Published was recorded for, joined by NUL.
	PublishedFor string `json:"published_for,omitempty"`
	Scan         *Scan  `json:"scan,omitempty"`
	// Trust is what the ledger was checked against: the store's signer
	// and the trusted key (Extend's setTrust).
	Trust string `json:"trust,omitempty"`
	// OKEnd is where LastOK's line ends in the ledger (past its newline):
	// the receipts after it, all failed, are the ledger's bytes from there
	// on (failedTail). 0: not recorded, or no LastOK.
	OKEnd int64 `json:"ok_end,omitempty"`
	// checked: this Store checked the entry against the files (or wrote
	// them) since it was loaded; pubChecked: the same of Published.
	checked, pubChecked bool
	// seen and pubSeen are the check (index.gen) that last found the
	// entry, and its Published, fresh.
	seen, pubSeen int
	// lazyLast and lazyLastOK stand for Last and LastOK, read from the
	// index file and not decoded yet (lazyReceipt); full decodes them.
	lazyLast, lazyLastOK *lazyReceipt
}

// full decodes the entry's receipts read lazily; false when one does
// not read (never, for an entry readEntry read).
func (e *indexEntry) full() bool {
	if l := e.lazyLast; l != nil {
		r, ok := l.decode()
		if !ok {
			return false
		}
		e.Last, e.lazyLast = r, nil
		if e.lazyLastOK == l {
			e.LastOK, e.lazyLastOK = r, nil
		}
	}
	if l := e.lazyLastOK; l != nil {
		r, ok := l.decode()
		if !ok {
			return false
		}
		e.LastOK, e.lazyLastOK = r, nil
	}
	return true
}

// summary is what the stale scan reads of the entry's last receipt:
// its hash, version and drain, and whether there is one.
func (e *indexEntry) summary() (hash, version string, drain int, ok bool) {
	switch {
	case e.Last != nil:
		return e.Last.Hash, e.Last.Version, e.Last.Drain, true
	case e.lazyLast != nil:
		return e.lazyLast.hash, e.lazyLast.version, e.lazyLast.drain, true
	}
	return "", "", 0, false
}

type index struct {
	mu        sync.Mutex
	loaded    bool
	at        int64 // the index file's modification time when read
	lines     int   // lines in the file
	nodes     map[string]*indexEntry
	dirty     map[string]bool
	exclusive bool
	trust     string
	// signer and trusted are the store's as of setTrust.
	signer  string
	trusted ed25519.PublicKey
	// gen counts the checks before drains (setTrust): within one, an
	// entry found fresh is not stat'ed again.
	gen int
	// whole: an exclusive Store's check before a drain found every node
	// of the directory fresh or checked it (later ones list nothing).
	whole bool
	// writes counts the writes made through s (Writes).
	writes uint64
	// tail is the buffer failedTail reads a ledger's tail into.
	tail []byte
	// moved are the last receipts (hash, drain) of the entries read from
	// the index file that fresh found moved (their ledger or head is not
	// the one recorded), by node: what Extend compares the ledger it
	// checks with (an older copy put back ends before it).
	moved map[string]movedEntry
}

// movedEntry is the last receipt an index entry found moved recorded.
type movedEntry struct {
	hash  string
	drain int
}

// Held reports whether the caller said it holds the directory's lock for
// as long as it uses s (HoldLock).
func (s *Store) Held() bool {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return s.idx.exclusive
}

// Writes counts the changes made through s to what a drain reads (a
// receipt, a version, published files, a repair): a caller that keeps
// what a drain read compares it to know that nothing moved since.
func (s *Store) Writes() uint64 {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return s.idx.writes
}

func (s *Store) wrote() {
	s.idx.mu.Lock()
	s.idx.writes++
	s.idx.mu.Unlock()
}

// setTrust sets what the entries written from now on were checked
// against; an entry checked against anything else is not fresh. s.mu is
// held.
func (s *Store) setTrust() {
	t := s.signer + "/"
	if s.Trusted != nil {
		t += receipt.Fingerprint(s.Trusted)
	}
	s.idx.mu.Lock()
	s.idx.trust, s.idx.signer, s.idx.trusted = t, s.signer, s.Trusted
	s.idx.gen++
	s.idx.mu.Unlock()
}

// IndexPath is the drain index of the state directory.
func (s *Store) IndexPath() string { return filepath.Join(s.Dir, "index.jsonl") }

// HoldLock says the caller holds the directory's writer lock (Lock) for
// as long as it uses s: what s checked or wrote itself stays trusted
// from drain to drain without a stat. Damage made meanwhile by a process
// that is no writer (an edit by hand) is found by Verify, by the check of
// a node's ledger before each receipt appended to it, and by the next
// Store opened on the directory.
func (s *Store) HoldLock() {
	s.idx.mu.Lock()
	s.idx.exclusive = true
	s.idx.mu.Unlock()
}

// loadIndex reads the index file once; a line that does not read ends
// it (the rest is rebuilt from the ledgers). idx.mu is held.
func (s *Store) loadIndex() {
	x := &s.idx
	if x.loaded {
		return
	}
	x.loaded, x.nodes, x.dirty, x.lines, x.moved = true, map[string]*indexEntry{}, map[string]bool{}, 0, nil
	p := s.IndexPath()
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	b, err := readSized(p, fi.Size())
	if err != nil {
		return
	}
	x.at = fi.ModTime().UnixNano()
	eachEntry(b, func(e *indexEntry) {
		x.nodes[e.Node] = e
		x.lines++
	})
}

// eachEntry calls fn with each entry of b, the drain index file's
// bytes, in order, up to the first line that does not read: a torn or
// damaged line ends the file, for a drain and a reader alike.
func eachEntry(b []byte, fn func(*indexEntry)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return // torn
		}
		e := new(indexEntry)
		if !decodeEntry(b[:i], e, true) {
			return
		}
		fn(e)
		b = b[i+1:]
	}
}

// dropIndex forgets every entry (a repair or an upgrade rewrote what
// they record).
func (s *Store) dropIndex() {
	s.idx.mu.Lock()
	s.idx.loaded, s.idx.whole = false, false
	s.idx.writes++
	s.idx.mu.Unlock()
}

// wholeChecked reports whether an exclusive Store's earlier check before
// a drain covered every node of the directory; whole sets it.
func (s *Store) wholeChecked() bool {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return s.idx.exclusive && s.idx.whole && s.idx.loaded
}

func (s *Store) setWhole() {
	s.idx.mu.Lock()
	s.idx.whole = s.idx.exclusive
	s.idx.mu.Unlock()
}

// racy reports whether id changed so close to the index's writing that a
// later change within the clock's granularity would not show.
func (x *index) racy(id fileID) bool {
	return x.at != 0 && (id.Mod >= x.at || id.Change >= x.at)
}

// fresh returns node's entry when the ledger and head record are still
// those it recorded (trusted without a stat when s holds the lock and
// checked it before), else nil. idx.mu is held.
func (s *Store) fresh(node string) *indexEntry {
	s.loadIndex()
	x := &s.idx
	e := x.nodes[node]
	if e == nil {
		return nil
	}
	if e.Trust != x.trust {
		delete(x.nodes, node)
		return nil
	}
	if x.exclusive && e.checked || e.seen == x.gen && e.checked {
		return e
	}
	l, h := statID(s.LedgerPath(node)), statID(s.HeadPath(node))
	if l != e.Ledger || h != e.Head || !e.checked && (x.racy(l) || x.racy(h)) || !e.checked && !s.vouched(node, e) {
		if hash, _, drain, ok := e.summary(); ok && (l != e.Ledger || h != e.Head) {
			if x.moved == nil {
				x.moved = map[string]movedEntry{}
			}
			x.moved[node] = movedEntry{hash, drain}
		}
		delete(x.nodes, node)
		return nil
	}
	e.checked, e.seen = true, x.gen
	return e
}

// vouched reports, for an entry read from the index file, whether the
// files it describes vouch for the receipts it holds (decided). The
// index is not signed and its checksums are CRC-32, which anyone can
// recompute: an entry whose receipt was edited (its version pointed at an
// older truth) or replaced by an older receipt of the node, checksum
// recomputed and file identities kept, would otherwise decide the drain
// (a subscriber rendered from a truth its producer no longer publishes,
// with exit 0 and a store that verifies). So an entry is believed only
// when each of its receipts checks by its own hash (and, in a signed
// store or under a trusted key, its signature by that key), its last
// receipt is the one the node's head record names, the head covers the
// whole ledger (signed by the store's key, in a signed store), and its
// last non-failed receipt is that one, or the one just before it, or,
// when more than one receipt failed since, the one the failed receipts
// of the ledger's tail chain back to (failedTail, tail.go: an older
// non-failed receipt named, or an ok_end pointed elsewhere, does not
// close the chain). Otherwise the node's receipts are read from its
// ledger, and the entry written anew. This decodes every entry a process
// reads from the file, reads each node's head record once per process,
// and reads the failed tail of a node whose last receipts failed (not
// its whole ledger).
func (s *Store) vouched(node string, e *indexEntry) bool {
	if !e.full() {
		return false
	}
	for _, r := range []*receipt.Receipt{e.Last, e.LastOK} {
		if r == nil {
			continue
		}
		if r.Check(s.idx.trusted) != nil || r.Node != e.Node {
			return false
		}
		if s.idx.trust == "/" {
			continue
		}
		fp := r.KeyFingerprint()
		if s.idx.trusted != nil && fp != receipt.Fingerprint(s.idx.trusted) || s.idx.signer != "" && fp != s.idx.signer {
			return false
		}
	}
	if e.Last == nil {
		// No receipt: the ledger's identity (none, or empty) is the check.
		return e.LastOK == nil
	}
	h, err := readHead(s.HeadPath(node))
	if err != nil || h == nil || h.Receipts == 0 || h.Hash != e.Last.Hash {
		return false
	}
	// The head must cover the whole ledger (the size the stat found):
	// a head put back a receipt, with the entry edited to match, is what a
	// kill between a ledger and its head leaves, and only the check of
	// the ledger from its head tells the two apart. In a signed store (or
	// under a trusted key) the head must be signed by that key, as the
	// check from a head wants: else receipts cut from the ledger's end,
	// with a head rewritten to match, would go unseen.
	if h.Size != e.Ledger.Size {
		return false
	}
	switch {
	case s.idx.trusted != nil:
		if !h.signedBy(receipt.Fingerprint(s.idx.trusted)) {
			return false
		}
	case s.idx.signer != "":
		if !h.signedBy(s.idx.signer) {
			return false
		}
	}
	switch {
	case e.LastOK == nil:
		return e.Last.Status == receipt.Failed && (e.Last.Prev == "" || s.failedTail(node, e))
	case e.LastOK == e.Last || e.LastOK.Hash == e.Last.Hash:
		return e.Last.Status != receipt.Failed
	case e.Last.Status != receipt.Failed || e.LastOK.Status == receipt.Failed:
		return false
	default:
		return e.LastOK.Hash == e.Last.Prev || s.failedTail(node, e)
	}
}

// Standing is node's last receipts and stale-scan record, from the index
// when it still matches the ledger, else read from the ledger (and
// indexed). The receipts of an entry read from the index file are
// decoded when Receipts is first called; until then the summary (Hash,
// Version, Drain) is what the index holds of the last one.
func (s *Store) Standing(node string) (Standing, error) {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	if e := s.fresh(node); e != nil {
		sd := Standing{Scan: e.Scan}
		sd.Hash, sd.Version, sd.Drain, sd.Exists = e.summary()
		if e.lazyLast == nil && e.lazyLastOK == nil {
			sd.last, sd.lastOK, sd.done = e.Last, e.LastOK, true
			return sd, nil
		}
		sd.load = func() (*receipt.Receipt, *receipt.Receipt, error) { return s.receiptsOf(node, e) }
		return sd, nil
	}
	e, err := s.standingFromLedger(node)
	if err != nil {
		return Standing{}, err
	}
	sd := Standing{last: e.Last, lastOK: e.LastOK, done: true}
	sd.Hash, sd.Version, sd.Drain, sd.Exists = e.summary()
	return sd, nil
}

// standingFromLedger reads node's last receipts from its ledger and
// indexes them anew. idx.mu is held.
func (s *Store) standingFromLedger(node string) (*indexEntry, error) {
	e := &indexEntry{Node: node, Ledger: statID(s.LedgerPath(node)), Head: statID(s.HeadPath(node)), Trust: s.idx.trust, checked: true, seen: s.idx.gen}
	rs, b, err := s.ledger(node)
	if err != nil {
		return nil, err
	}
	if len(rs) > 0 {
		e.Last = rs[len(rs)-1]
		for i := len(rs) - 1; i >= 0; i-- {
			if rs[i].Status != receipt.Failed {
				e.LastOK, e.OKEnd = rs[i], lineEnd(b, i+1)
				break
			}
		}
	}
	s.idx.nodes[node] = e
	s.idx.dirty[node] = true
	return e, nil
}

// receiptsOf decodes the receipts of e, node's entry as Standing found
// it. An entry whose receipts do not read (which the index's decoder
// rules out) is dropped and read again from the ledger; a ledger whose
// last receipt is not the one the entry summed up is refused rather
// than mixed with what was decided from the summary.
func (s *Store) receiptsOf(node string, e *indexEntry) (*receipt.Receipt, *receipt.Receipt, error) {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	hash, _, _, _ := e.summary()
	if e.full() {
		return e.Last, e.LastOK, nil
	}
	if s.idx.nodes[node] == e {
		delete(s.idx.nodes, node)
	}
	f, err := s.standingFromLedger(node)
	if err != nil {
		return nil, nil, err
	}
	if got, _, _, _ := f.summary(); got != hash {
		return nil, nil, fmt.Errorf("%s: the entry of node %s does not read, and its ledger has moved since: delete the index and run again", s.IndexPath(), node)
	}
	return f.Last, f.LastOK, nil
}

// SetScan records the stale scan's record of node (nil: none).
func (s *Store) SetScan(node string, sc *Scan) {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	if e := s.fresh(node); e != nil {
		e.Scan = sc
		s.idx.dirty[node] = true
	}
}

// lineEnd is the offset just past the n-th line of b that is not blank
// (the n-th receipt, as parseLedger reads them): past its newline, or
// the end of b.
func lineEnd(b []byte, n int) int64 {
	off := 0
	for off < len(b) {
		end := len(b)
		if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		if len(bytes.TrimSpace(b[off:end])) > 0 {
			if n--; n == 0 {
				return int64(end)
			}
		}
		off = end
	}
	return int64(off)
}

// indexAppended brings node's entry up to r, just appended to its ledger,
// which is now size bytes (s.mu is held).
func (s *Store) indexAppended(node string, r *receipt.Receipt, size int64) {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	s.loadIndex()
	e := s.idx.nodes[node]
	if e == nil || !e.full() || e.Last != nil && e.Last.Hash != r.Prev || e.Last == nil && r.Prev != "" {
		s.idx.writes++
		delete(s.idx.nodes, node) // Standing reads the ledger again
		return
	}
	s.idx.writes++
	e.Last, e.Scan = r, nil
	if r.Status != receipt.Failed {
		e.LastOK, e.OKEnd = r, size
	}
	if e.Trust != s.idx.trust {
		delete(s.idx.nodes, node)
		return
	}
	e.Ledger, e.Head, e.checked, e.seen = statID(s.LedgerPath(node)), statID(s.HeadPath(node)), true, s.idx.gen
	s.idx.dirty[node] = true
}

// unchanged reports whether node's ledger and head record are those its
// index entry recorded (so checked when it was written).
func (s *Store) unchanged(node string) bool {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return s.fresh(node) != nil
}

// trusted reports whether node's entry is trusted without a stat.
func (s *Store) trusted(node string) bool {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	s.loadIndex()
	e := s.idx.nodes[node]
	return s.idx.exclusive && e != nil && e.checked
}

// publishedFiles are the names, in node's directory, of its published
// files for facets.
func (s *Store) publishedFiles(node string, facets []string) map[string]string {
	out := map[string]string{"truth.json": s.TruthPath(node)}
	for _, f := range facets {
		p := s.FacetPath(node, f)
		rel, _ := filepath.Rel(s.nodeDir(node), p)
		out[filepath.ToSlash(rel)] = p
	}
	return out
}

// publishedKnown reports whether node's published files for facets are
// those the index recorded as its last receipt's version.
func (s *Store) publishedKnown(node string, facets []string) bool {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	e := s.fresh(node)
	if e == nil || e.Published == nil {
		return false
	}
	if e.PublishedFor != strings.Join(facets, "\x00") {
		return false
	}
	files := s.publishedFiles(node, facets)
	if len(files) != len(e.Published) {
		return false
	}
	if s.idx.exclusive && e.pubChecked || e.pubSeen == s.idx.gen && e.pubChecked {
		return e.PublishedFor == strings.Join(facets, "\x00")
	}
	for name, p := range files {
		if id, ok := e.Published[name]; !ok || statID(p) != id || !e.pubChecked && s.idx.racy(id) {
			return false
		}
	}
	if !e.pubChecked && !s.publishedVouched(node, e, facets, files) {
		return false
	}
	e.pubChecked, e.pubSeen = true, s.idx.gen
	return true
}

// publishedVouched reports, for an entry read from the index file, whether
// node's published files hold what its last receipt's version does
// (decided). The identities the entry records are no proof: anyone can
// edit a published file and write its new identity into the entry,
// checksum recomputed, and the drain would then neither compare nor
// refuse it. So the files are read once per process: truth.json,
// without its whitespace, must hash to the version's address (no decode),
// and each facet file, without its whitespace, must be the canonical form
// of that member of it. Otherwise the drain compares them with the
// version, as when their identities moved. idx.mu is held.
func (s *Store) publishedVouched(node string, e *indexEntry, facets []string, files map[string]string) bool {
	if !e.full() || e.Last == nil {
		return false
	}
	if e.Last.Version == "" {
		for name := range files {
			if e.Published[name].Size != -1 {
				return false
			}
		}
		return true
	}
	compact := func(p string) []byte {
		b, err := readFile(p)
		if err != nil {
			return nil
		}
		var out bytes.Buffer
		if json.Compact(&out, b) != nil {
			return nil
		}
		return out.Bytes()
	}
	truth := compact(files["truth.json"])
	if truth == nil || canon.Hash(truth) != e.Last.Version {
		return false
	}
	if len(facets) == 0 {
		return true
	}
	v, err := canon.Decode(truth)
	if err != nil {
		return false
	}
	m, _ := v.(map[string]any)
	for _, f := range facets {
		want, err := canon.Marshal(m[f])
		if err != nil || !bytes.Equal(compact(s.FacetPath(node, f)), want) {
			return false
		}
	}
	return true
}

// unpublished reports whether node's entry, fresh, says its last
// receipt publishes no truth (a node whose renders all failed): Repair
// has nothing to compare then, as when it reads that from the ledger.
func (s *Store) unpublished(node string) bool {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	e := s.fresh(node)
	if e == nil {
		return false
	}
	_, v, _, ok := e.summary()
	return ok && v == ""
}

// indexPublished records node's published files for facets, just
// written with truth, when truth is its last receipt's version.
func (s *Store) indexPublished(node string, facets []string, truth any) {
	b, err := canon.Marshal(truth)
	if err != nil {
		return
	}
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	s.loadIndex()
	e := s.idx.nodes[node]
	if e == nil {
		return
	}
	if _, v, _, ok := e.summary(); !ok || v != canon.Hash(b) {
		return
	}
	e.Published, e.pubChecked, e.pubSeen = map[string]fileID{}, true, s.idx.gen
	e.PublishedFor = strings.Join(facets, "\x00")
	for name, p := range s.publishedFiles(node, facets) {
		e.Published[name] = statID(p)
	}
	s.idx.dirty[node] = true
}

// SaveIndex writes the entries that changed since the last save, one
// line each, at the end of the index file (rewritten whole, by an atomic
// write, when it has grown to more than twice its nodes). The index is
// only ever trusted as far as it matches the files, so it is not synced:
// a line lost to a crash is an entry rebuilt.
//
// A write that fails is said with what to do: the drain's receipts are
// committed by then, and the index is derived, so a file in its way (a
// directory, a named pipe) is moved aside, never trusted or waited on.
func (s *Store) SaveIndex() error {
	if err := s.saveIndex(); err != nil {
		return fmt.Errorf("%w (the drain's receipts are committed; %s is derived data: move it aside, and the next drain rebuilds it)", err, s.IndexPath())
	}
	return nil
}

func (s *Store) saveIndex() error {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	x := &s.idx
	if !x.loaded || len(x.dirty) == 0 {
		return nil
	}
	var names []string
	for n := range x.dirty {
		if x.nodes[n] != nil {
			names = append(names, n)
		}
	}
	x.dirty = map[string]bool{}
	if x.lines+len(names) > 2*len(x.nodes)+16 {
		names = names[:0]
		for n := range x.nodes {
			names = append(names, n)
		}
		sort.Strings(names)
		b, err := x.encode(names)
		if err != nil {
			return err
		}
		x.lines = len(names)
		return s.writeAtomic(s.IndexPath(), b)
	}
	sort.Strings(names)
	b, err := x.encode(names)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(s.IndexPath()); err == nil && !fi.Mode().IsRegular() {
		// Never opened: a named pipe would block the open.
		return &fs.PathError{Op: "write", Path: s.IndexPath(), Err: errors.New("not a regular file")}
	}
	s.point("append " + s.IndexPath())
	f, err := os.OpenFile(s.IndexPath(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	x.lines += len(names)
	return err
}

// encode writes the entries of names, one line each: the CRC-32 (IEEE,
// 8 hex digits) of the entry's JSON, a space, the JSON. An entry's last
// non-failed receipt is left out when it is its last receipt.
func (x *index) encode(names []string) ([]byte, error) {
	var b bytes.Buffer
	for _, n := range names {
		if !x.nodes[n].full() {
			return nil, fmt.Errorf("%s: the entry of node %s does not read", "index.jsonl", n)
		}
		c := *x.nodes[n]
		if c.LastOK != nil && c.Last != nil && c.LastOK.Hash == c.Last.Hash {
			c.LastOK = nil
		}
		line, err := json.Marshal(&c)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%08x ", crc32.ChecksumIEEE(line))
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// decodeEntry reads one line of the index into e: false when its
// checksum or JSON does not read (an index damaged there).
func decodeEntry(line []byte, e *indexEntry, lazy bool) bool {
	sum, body, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(sum) != 8 {
		return false
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || uint32(want) != crc32.ChecksumIEEE(body) {
		return false
	}
	if !readEntry(body, e, lazy) {
		*e = indexEntry{}
		if json.Unmarshal(body, e) != nil {
			return false
		}
	}
	if e.Node == "" {
		return false
	}
	if e.LastOK == nil && e.Last != nil && e.Last.Status != receipt.Failed {
		e.LastOK = e.Last
	}
	if e.lazyLastOK == nil && e.LastOK == nil && e.lazyLast != nil && receipt.Status(e.lazyLast.status) != receipt.Failed {
		e.lazyLastOK = e.lazyLast
	}
	return true
}
