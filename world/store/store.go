// Package store keeps a world model on disk: per node its published
// truth, the content-addressed versions of it, and its receipt ledger.
//
// Layout of a state directory (format 1, see FORMAT.md beside this file):
//
//	DIR/FORMAT                        {"format":"prose-world","version":"1.0"}
//	DIR/NODE/truth.json               the published truth, canonical and indented
//	DIR/NODE/facets/FACET.json        each facet's value (member FACET of the truth)
//	DIR/NODE/versions/sha256-HEX.json every truth ever committed, by its hash; never rewritten
//	DIR/NODE/receipts.jsonl           the node's receipts, one canonical JSON line each
//	DIR/NODE/durations.jsonl          how long each render took, by receipt hash (not hashed)
//
// Every file is written atomically: a temporary file in the same
// directory, fsync, rename, fsync of the directory. A commit writes the
// version first, then the receipt (the commit point), then the published
// files, which are derived: Repair rewrites them from the last receipt's
// version, so a crash at any point leaves either the old commit or the
// new one, never half of one. A reader refuses a state directory or a
// receipt of a newer major format.
//
// Main types: Store. Entry points: Open, (*Store).Commit, (*Store).Ledger,
// (*Store).Verify.
package store

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/json"
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

// Format of the state directory.
const (
	FormatMajor = 1
	Format      = "1.0"
	formatName  = "prose-world"
)

// Store is an open state directory.
type Store struct {
	Dir string
}

// Open opens (creating it when absent) the state directory dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "FORMAT")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		doc, _ := json.Marshal(map[string]string{"format": formatName, "version": Format})
		if err := writeAtomic(p, append(doc, '\n')); err != nil {
			return nil, err
		}
		return &Store{Dir: dir}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct{ Format, Version string }
	if err := json.Unmarshal(b, &doc); err != nil || doc.Format != formatName {
		return nil, fmt.Errorf("%s: not a prose world state directory (its FORMAT file is not one)", dir)
	}
	var major int
	if _, err := fmt.Sscanf(doc.Version, "%d.", &major); err != nil || major > FormatMajor {
		return nil, fmt.Errorf("%s: state format %s is newer than this prose reads (%s): upgrade prose", dir, doc.Version, Format)
	}
	return &Store{Dir: dir}, nil
}

// escape makes a node id or facet name a file name: letters, digits,
// '.', '_', '-' and ':' stay, any other byte is %XX.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == ':' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

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

// writeAtomic writes b to p by temporary file, fsync and rename, then
// syncs the directory.
func writeAtomic(p string, b []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// PutVersion stores truth under its content address and returns the
// address; an existing version is left as it is.
func (s *Store) PutVersion(node string, truth any) (string, error) {
	b, err := canon.Marshal(truth)
	if err != nil {
		return "", err
	}
	v := canon.Hash(b)
	p := s.VersionPath(node, v)
	if _, err := os.Stat(p); err == nil {
		return v, nil
	}
	return v, writeAtomic(p, append(b, '\n'))
}

// Version reads a stored version, checking its content against its
// address.
func (s *Store) Version(node, version string) (any, error) {
	b, err := os.ReadFile(s.VersionPath(node, version))
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
	p := s.LedgerPath(node)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*receipt.Receipt
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, err := receipt.Parse(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", p, n, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if ds := s.durations(node); ds != nil {
		for _, r := range out {
			if ms, ok := ds[r.Hash]; ok && r.Cost.DurationMS == 0 {
				r.Cost.DurationMS = ms
			}
		}
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
// rewritten atomically, so a kill leaves the old ledger or the new one.
// A render's duration goes to NODE/durations.jsonl after the commit: it
// is a measurement, outside the hash chain, so a ledger regenerated from
// the same events is byte-identical; a kill between the two loses at most
// that one duration.
func (s *Store) Append(node string, r *receipt.Receipt) error {
	line, err := r.Marshal()
	if err != nil {
		return err
	}
	old, err := os.ReadFile(s.LedgerPath(node))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writeAtomic(s.LedgerPath(node), append(append(old, line...), '\n')); err != nil {
		return err
	}
	if r.Cost.DurationMS == 0 {
		return nil
	}
	f, err := os.OpenFile(s.DurationsPath(node), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "{\"duration_ms\":%d,\"receipt\":%q}\n", r.Cost.DurationMS, r.Hash)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// DurationsPath is node's file of render durations.
func (s *Store) DurationsPath(node string) string {
	return filepath.Join(s.nodeDir(node), "durations.jsonl")
}

// durations reads node's durations by receipt hash; lines that do not
// read (a torn last line) are skipped.
func (s *Store) durations(node string) map[string]int64 {
	b, err := os.ReadFile(s.DurationsPath(node))
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
	b, err := canon.Indent(truth)
	if err != nil {
		return err
	}
	if err := writeAtomic(s.TruthPath(node), b); err != nil {
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
		if err := writeAtomic(s.FacetPath(node, f), fb); err != nil {
			return err
		}
	}
	entries, _ := os.ReadDir(filepath.Join(s.nodeDir(node), "facets"))
	for _, e := range entries {
		if !keep[e.Name()] && strings.HasSuffix(e.Name(), ".json") {
			os.Remove(filepath.Join(s.nodeDir(node), "facets", e.Name()))
		}
	}
	return nil
}

// Published reads node's published truth; ok is false when it has none.
func (s *Store) Published(node string) (v any, ok bool, err error) {
	b, err := os.ReadFile(s.TruthPath(node))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err = canon.Decode(b)
	return v, err == nil, err
}

// Repair republishes node's truth from its last receipt's version when
// the published files differ from it (a crash after the receipt and
// before the files). It reports whether it rewrote anything.
func (s *Store) Repair(node string, facets []string) (bool, error) {
	last, err := s.Last(node)
	if err != nil || last == nil || last.Version == "" {
		return false, err
	}
	want, err := s.Version(node, last.Version)
	if err != nil {
		return false, err
	}
	if s.publishedMatches(node, want, facets) {
		return false, nil
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
		b, err := os.ReadFile(s.FacetPath(node, f))
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

// Nodes lists the node directories of the store (by escaped name),
// sorted.
func (s *Store) Nodes() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if _, err := os.Stat(filepath.Join(s.Dir, e.Name(), "receipts.jsonl")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Problem is one thing Verify found wrong, naming the file.
type Problem struct {
	File string
	Msg  string
}

func (p Problem) String() string { return p.File + ": " + p.Msg }

// Verify checks every ledger's chain (and signatures, against trusted
// when set), that every version a receipt names exists with the content
// its address says, and that the published files are the last receipt's
// version. facets gives each node's declared facets (nil: those the last
// receipt fingerprints).
func (s *Store) Verify(trusted ed25519.PublicKey, facets func(node string) []string) ([]Problem, error) {
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, node := range nodes {
		out = append(out, s.verifyNode(node, trusted, facets)...)
	}
	return out, nil
}

func (s *Store) verifyNode(dirName string, trusted ed25519.PublicKey, facets func(string) []string) []Problem {
	ledger := filepath.Join(s.Dir, dirName, "receipts.jsonl")
	rs, err := s.ledgerAt(ledger)
	if err != nil {
		return []Problem{{ledger, err.Error()}}
	}
	if len(rs) == 0 {
		return nil
	}
	node := rs[0].Node
	var out []Problem
	if i, err := receipt.Chain(rs, trusted); err != nil {
		out = append(out, Problem{ledger, fmt.Sprintf("receipt %d (%s %s): %v", i+1, rs[i].Status, rs[i].Hash, err)})
	}
	for i, r := range rs {
		if r.Node != node {
			out = append(out, Problem{ledger, fmt.Sprintf("receipt %d is of node %q, not %q", i+1, r.Node, node)})
		}
		if r.Version == "" {
			continue
		}
		if _, err := s.Version(node, r.Version); err != nil {
			out = append(out, Problem{s.VersionPath(node, r.Version), fmt.Sprintf("version named by receipt %d: %v", i+1, err)})
		}
	}
	last := rs[len(rs)-1]
	if last.Version == "" {
		return out
	}
	want, err := s.Version(node, last.Version)
	if err != nil {
		return out
	}
	got, ok, err := s.Published(node)
	switch {
	case err != nil:
		out = append(out, Problem{s.TruthPath(node), err.Error()})
	case !ok:
		out = append(out, Problem{s.TruthPath(node), "missing: the last receipt publishes " + last.Version})
	case !sameJSON(got, want):
		out = append(out, Problem{s.TruthPath(node), "edited: it is not the version " + last.Version + " the last receipt publishes"})
	}
	var fs []string
	if facets != nil {
		fs = facets(node)
	} else {
		for f := range last.Facets {
			if f != "@atomic" {
				fs = append(fs, f)
			}
		}
		sort.Strings(fs)
	}
	m, _ := want.(map[string]any)
	for _, f := range fs {
		p := s.FacetPath(node, f)
		b, err := os.ReadFile(p)
		if err != nil {
			out = append(out, Problem{p, "missing"})
			continue
		}
		v, err := canon.Decode(b)
		if err != nil || !sameJSON(v, m[f]) {
			out = append(out, Problem{p, "edited: it is not member " + f + " of version " + last.Version})
		}
	}
	return out
}

func (s *Store) ledgerAt(p string) ([]*receipt.Receipt, error) {
	dir := filepath.Base(filepath.Dir(p))
	// Ledger takes a node id; the directory name is its escaped form.
	rs, err := s.Ledger(unescape(dir))
	return rs, err
}

func unescape(s string) string {
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
