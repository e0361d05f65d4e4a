// Package store keeps a world model on disk: per node its published
// truth, the content-addressed versions of it, and its receipt ledger.
//
// Layout of a state directory (format 1, see FORMAT.md beside this file):
//
//	DIR/FORMAT                        {"format":"prose-world","version":"1.1"[,"signer":FINGERPRINT]}
//	DIR/NODE/truth.json               the published truth, canonical and indented
//	DIR/NODE/facets/FACET.json        each facet's value (member FACET of the truth)
//	DIR/NODE/versions/sha256-HEX.json every truth ever committed, by its hash; never rewritten
//	DIR/NODE/receipts.jsonl           the node's receipts, one canonical JSON line each
//	DIR/NODE/head.json                the ledger's head record: its receipts, last hash, size, digest
//	DIR/NODE/durations.jsonl          how long each render took, by receipt hash (not hashed)
//	DIR/index.jsonl                   the drain index: each node's last receipts, scan record, file identities
//
// Every file is written atomically: a temporary file in the same
// directory, fsync, rename, fsync of the directory. A commit writes the
// version first, then the receipt (the commit point), then the published
// files, which are derived: Repair rewrites them from the last receipt's
// version, so a crash at any point leaves either the old commit or the
// new one, never half of one. A reader refuses a state directory or a
// receipt of a newer major format, and reads only regular files: a named
// pipe, a device or a link loop in the store is an error naming it,
// returned without waiting.
//
// A writer holds the directory's lock (Lock) and, before it writes,
// checks what it extends (Extend): each ledger against its head record,
// the signing key against the one the store was created with. Verify is
// the whole check, RepairAll the repair of what can be rebuilt.
//
// The drain index (index.go) keeps what a drain's stale scan starts
// from, trusted only as far as the files it names are unchanged: Standing,
// SetScan, SaveIndex, HoldLock.
//
// Main types: Store, Problem, DamageError, Standing, Scan. Entry points: Lock, Open,
// (*Store).Extend, (*Store).Append, (*Store).Ledger, (*Store).Verify,
// (*Store).RepairAll.
package store

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// Format of the state directory.
//
// 1.1 keeps a head record beside each ledger and may name the signer's
// key fingerprint; a 1.0 directory is upgraded by its next drain.
const (
	FormatMajor = 1
	Format      = "1.1"
	formatName  = "prose-world"
)

// Store is an open state directory.
type Store struct {
	Dir string
	// Trusted, when set, is the key every receipt must be signed by
	// (--trusted-key): readers and drains refuse any other receipt.
	Trusted ed25519.PublicKey

	// signer is the fingerprint of the key the store was created with
	// ("" for an unsigned store); heads is whether every ledger has a
	// head record (format 1.1).
	// sign is the key of the drain that checked the store (Extend), which
	// signs the head records it writes. mu guards these three.
	mu     sync.Mutex
	signer string
	heads  bool
	sign   ed25519.PrivateKey

	// idx is the drain index (index.go).
	idx index
	// rec is the drain index as readers compare ledgers with it
	// (recorded.go).
	rec recorded

	// ledgerReads counts the whole ledgers read (by Ledger and by the
	// check of a ledger against its head record): what the index spares
	// a drain.
	ledgerReads atomic.Uint64

	// OnWrite, when set, is called before each step of every write to
	// the directory: "create PATH" before a file's new content is
	// written (to a temporary file), "rename PATH" before it replaces
	// PATH, "append PATH" before a line is appended to PATH. It is for
	// fault injection (the crash tests kill the process there).
	OnWrite func(step string)
}

func (s *Store) point(step string) {
	if s.OnWrite != nil {
		s.OnWrite(step)
	}
}

// formatDoc is the FORMAT file.
type formatDoc struct {
	Format  string `json:"format"`
	Version string `json:"version"`
	Signer  string `json:"signer,omitempty"`
}

// Open opens (creating it when absent, mode 0700) the state directory dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "FORMAT")
	b, err := readFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if err := formatLost(dir); err != nil {
			return nil, err
		}
		s := &Store{Dir: dir, heads: true}
		return s, s.writeFormat()
	}
	if err != nil {
		return nil, err
	}
	var doc formatDoc
	if err := json.Unmarshal(b, &doc); err != nil || doc.Format != formatName {
		return nil, fmt.Errorf("%s: not a prose world state directory (its FORMAT file is not one)", dir)
	}
	var major, minor int
	if _, err := fmt.Sscanf(doc.Version, "%d.%d", &major, &minor); err != nil || major > FormatMajor {
		return nil, fmt.Errorf("%s: state format %s is newer than this prose reads (%s): upgrade prose", dir, doc.Version, Format)
	}
	return &Store{Dir: dir, signer: doc.Signer, heads: major > 1 || minor >= 1}, nil
}

// formatLost refuses a directory without a FORMAT file that holds a
// store's files (decided): FORMAT is written before anything else, so
// such a directory lost it, and with it the signer a signed store pins;
// writing a new one would make a signed store an unsigned one, whose
// drains go on without the key. It names a file the store holds and the
// repair.
func formatLost(dir string) error {
	held := ""
	if _, err := os.Lstat(filepath.Join(dir, "index.jsonl")); err == nil {
		held = filepath.Join(dir, "index.jsonl")
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if held != "" {
			break
		}
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		for _, f := range []string{"receipts.jsonl", "head.json", "versions"} {
			if _, err := os.Lstat(filepath.Join(dir, e.Name(), f)); err == nil {
				held = filepath.Join(dir, e.Name(), f)
				break
			}
		}
	}
	if held == "" {
		return nil
	}
	return fmt.Errorf("%s: no FORMAT file, though the directory holds a world model's state (%s): it was deleted, and with it the key a signed store was signed by; restore it (%s: {\"format\":\"prose-world\",\"version\":\"%s\"}, with \"signer\" when the receipts are signed)",
		dir, held, filepath.Join(dir, "FORMAT"), Format)
}

// Signer is the fingerprint of the key the store's receipts are signed
// by, as its FORMAT file records it ("" for an unsigned store).
func (s *Store) Signer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signer
}

func (s *Store) writeFormat() error {
	v := "1.0"
	if s.heads {
		v = Format
	}
	doc, _ := json.Marshal(formatDoc{Format: formatName, Version: v, Signer: s.signer})
	return s.writeAtomic(filepath.Join(s.Dir, "FORMAT"), append(doc, '\n'))
}

// readFile reads p whole when it is a regular file (or a link to one): a
// named pipe, a device or a socket is refused at once, not waited on, and
// a link loop is an error; each error names p.
func readFile(p string) ([]byte, error) {
	b, err := filekind.ReadFile(p)
	var pe *fs.PathError
	if err != nil && !errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) {
		var nr *filekind.NotRegularError
		if !errors.As(err, &nr) {
			err = fmt.Errorf("%s: %w", p, err)
		}
	}
	return b, err
}

// readSized is readFile of a file whose size was just found to be
// size: read into one buffer of that size (and more, should it have
// grown), not one grown from a few hundred bytes.
func readSized(p string, size int64) ([]byte, error) {
	f, err := filekind.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, size+512)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// escape makes a node id or facet name a file name: letters, digits,
// '.', '_', '-' and ':' stay, any other byte is %XX.
func escape(s string) string {
	i := 0
	for i < len(s) && kept(s[i], i) {
		i++
	}
	if i == len(s) {
		return s // nothing to escape: the common case, a file per node per drain
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if kept(c, i) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// kept reports whether escape keeps byte c at index i of a name.
func kept(c byte, i int) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == ':' || c == '.' && i > 0
}

// RunsDir is the run directory of the journals of node's renders in
// the state directory dir: dir/.runs/NODE (see FORMAT.md).
func RunsDir(dir, node string) string { return filepath.Join(dir, ".runs", escape(node)) }

func (s *Store) nodeDir(node string) string { return filepath.Join(s.Dir, escape(node)) }

// TruthPath is the published truth file of node.
func (s *Store) TruthPath(node string) string {
	return filepath.Join(s.nodeDir(node), "truth.json")
}

// FacetPath is the published file of a facet of node.
func (s *Store) FacetPath(node, facet string) string {
	return filepath.Join(s.nodeDir(node), "facets", escape(facet)+".json")
}

// VersionPath is the file of a version ("sha256:HEX") of node.
func (s *Store) VersionPath(node, version string) string {
	return filepath.Join(s.nodeDir(node), "versions", strings.Replace(version, ":", "-", 1)+".json")
}

// LedgerPath is node's receipt ledger.
func (s *Store) LedgerPath(node string) string {
	return filepath.Join(s.nodeDir(node), "receipts.jsonl")
}

// writeAtomic writes b to p (mode 0600) whole (wholefile.WriteSteps, its
// steps named to the store's OnWrite), in its directory (created 0700
// when absent).
func (s *Store) writeAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return wholefile.WriteSteps(p, b, 0o600, s.point)
}

// PutVersion stores truth under its content address and returns the
// address; an existing version is left as it is. A node's first version
// is preceded by its empty head record: versions without a ledger then
// are a kill before the first commit (head of 0 receipts), and without a
// head too, a ledger lost.
func (s *Store) PutVersion(node string, truth any) (string, error) {
	s.wrote()
	b, err := canon.Marshal(truth)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	heads := s.heads
	s.mu.Unlock()
	if _, err := os.Lstat(s.HeadPath(node)); heads && errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(s.LedgerPath(node)); errors.Is(err, fs.ErrNotExist) {
			s.mu.Lock()
			err := s.writeHead(node, nil, "")
			s.mu.Unlock()
			if err != nil {
				return "", err
			}
		}
	}
	v := canon.Hash(b)
	p := s.VersionPath(node, v)
	if _, err := os.Stat(p); err == nil {
		return v, nil
	}
	return v, s.writeAtomic(p, append(b, '\n'))
}

// Version reads a stored version, checking its content against its
// address.
func (s *Store) Version(node, version string) (any, error) {
	b, err := readFile(s.VersionPath(node, version))
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	if canon.Hash(b) != version {
		return nil, fmt.Errorf("%s: its content does not match its address", s.VersionPath(node, version))
	}
	return canon.Decode(b)
}

// Ledger reads node's receipts in order (none when it has no ledger).
func (s *Store) Ledger(node string) ([]*receipt.Receipt, error) {
	rs, _, err := s.ledger(node)
	return rs, err
}

// ledger is Ledger, also returning the ledger's bytes.
func (s *Store) ledger(node string) ([]*receipt.Receipt, []byte, error) {
	p := s.LedgerPath(node)
	b, err := readFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s.ledgerReads.Add(1)
	out, err := parseLedger(p, b, 1)
	if err != nil {
		return nil, nil, err
	}
	if ds := s.durations(node); ds != nil {
		for _, r := range out {
			if ms, ok := ds[r.Hash]; ok && r.Cost.DurationMS == 0 {
				r.Cost.DurationMS = ms
			}
		}
	}
	return out, b, nil
}

// parseLedger reads the receipts of ledger bytes b (of file p), whose
// first line is line number first.
func parseLedger(p string, b []byte, first int) ([]*receipt.Receipt, error) {
	var out []*receipt.Receipt
	for n := first; len(b) > 0; n++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, err := receipt.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", p, n, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Last is node's last receipt, or nil.
func (s *Store) Last(node string) (*receipt.Receipt, error) {
	rs, err := s.Ledger(node)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return rs[len(rs)-1], nil
}

// Append adds a sealed receipt to node's ledger: the whole ledger is
// rewritten atomically, so a kill leaves the old ledger or the new one,
// and then its head record. The receipt must extend the ledger (its prev
// the last receipt's hash: a ledger that moved under its writer is
// refused) and be signed as the store is.
// A render's duration goes to NODE/durations.jsonl after the commit: it
// is a measurement, outside the hash chain, so a ledger regenerated from
// the same events is byte-identical; a kill between the two loses at most
// that one duration.
func (s *Store) Append(node string, r *receipt.Receipt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	line, err := r.Marshal()
	if err != nil {
		return err
	}
	if err := s.checkKey(r); err != nil {
		return fmt.Errorf("%s: not appended: %v", s.LedgerPath(node), err)
	}
	if s.trusted(node) {
		// The drain trusted what this Store checked before: the ledger it
		// extends is checked now, from its head record.
		if _, ps := s.checkNode(escape(node), false); len(ps) > 0 {
			return &DamageError{Dir: s.Dir, Problems: ps}
		}
	}
	old, err := readFile(s.LedgerPath(node))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if last := lastHash(old); r.Prev != last {
		return fmt.Errorf("%s: not appended: the receipt extends %q, but the ledger ends at %q (another process wrote it: take the state directory's lock)", s.LedgerPath(node), r.Prev, last)
	}
	if len(old) == 0 && s.heads {
		// A head before the first line: a kill between the ledger and
		// its head leaves a ledger one receipt ahead of it, never a
		// ledger without a head.
		if err := s.writeHead(node, nil, ""); err != nil {
			return err
		}
	}
	ledger := append(append(old, line...), '\n')
	if err := s.writeAtomic(s.LedgerPath(node), ledger); err != nil {
		return err
	}
	if s.heads {
		if err := s.writeHead(node, ledger, r.Hash); err != nil {
			return err
		}
	}
	s.indexAppended(node, r, int64(len(ledger)))
	if r.Cost.DurationMS == 0 {
		return nil
	}
	s.point("append " + s.DurationsPath(node))
	s.appendDuration(node, r)
	return nil
}

// appendDuration appends r's duration to node's durations file. The
// receipt is committed by then, so nothing here may fail the commit
// (decided): a durations file that cannot take the line (a named pipe,
// a directory, a file that cannot be written) loses that one duration,
// as a kill between the two would. It is never opened in a way that
// waits: a named pipe with no reader would hold the drain, and the
// lock, forever.
func (s *Store) appendDuration(node string, r *receipt.Receipt) {
	f, err := os.OpenFile(s.DurationsPath(node), os.O_APPEND|os.O_CREATE|os.O_WRONLY|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return
	}
	fmt.Fprintf(f, "{\"duration_ms\":%d,\"receipt\":%q}\n", r.Cost.DurationMS, r.Hash)
}

// lastHash is the hash of the last receipt of ledger bytes b ("" when
// none, or when its last line does not read: the check before the drain
// names that).
func lastHash(b []byte) string {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	var h struct{ Hash string }
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Hash
}

// lastDrain is the drain of the last receipt of ledger bytes b (0 when
// none, or when it does not read: the check names that).
func lastDrain(b []byte) int {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	var r struct{ Drain int }
	if json.Unmarshal(b, &r) != nil {
		return 0
	}
	return r.Drain
}

// DurationsPath is node's file of render durations.
func (s *Store) DurationsPath(node string) string {
	return filepath.Join(s.nodeDir(node), "durations.jsonl")
}

// durations reads node's durations by receipt hash; lines that do not
// read (a torn last line) are skipped.
func (s *Store) durations(node string) map[string]int64 {
	b, err := readFile(s.DurationsPath(node))
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var d struct {
			MS      int64  `json:"duration_ms"`
			Receipt string `json:"receipt"`
		}
		if json.Unmarshal(l, &d) == nil && d.Receipt != "" {
			out[d.Receipt] = d.MS
		}
	}
	return out
}

// Publish writes node's truth.json and one file per facet (the member
// of that name, null when absent). Facet files of facets no longer
// declared are removed.
func (s *Store) Publish(node string, truth any, facets []string) error {
	s.wrote()
	b, err := canon.Indent(truth)
	if err != nil {
		return err
	}
	if err := s.writeAtomic(s.TruthPath(node), b); err != nil {
		return err
	}
	m, _ := truth.(map[string]any)
	keep := map[string]bool{}
	for _, f := range facets {
		keep[filepath.Base(s.FacetPath(node, f))] = true
		fb, err := canon.Indent(m[f])
		if err != nil {
			return err
		}
		if err := s.writeAtomic(s.FacetPath(node, f), fb); err != nil {
			return err
		}
	}
	entries, _ := os.ReadDir(filepath.Join(s.nodeDir(node), "facets"))
	for _, e := range entries {
		if !keep[e.Name()] && strings.HasSuffix(e.Name(), ".json") {
			os.Remove(filepath.Join(s.nodeDir(node), "facets", e.Name()))
		}
	}
	s.indexPublished(node, facets, truth)
	return nil
}

// Published reads node's published truth; ok is false when it has none.
func (s *Store) Published(node string) (v any, ok bool, err error) {
	b, err := readFile(s.TruthPath(node))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err = canon.Decode(b)
	return v, err == nil, err
}
