package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/filekind"
)

// Large values (FORMAT.md, "Large values"). A JSON string of a record
// longer than BlobThreshold bytes, as written (quotes and escapes
// included), is kept once in the run directory, in blobs/HEX (HEX: the
// hex sha256 of those bytes), and the record holds a stub in its place,
// the string "$blob", and says where: the line begins with a "$blobs"
// field, [[OFF,"HEX"],...], OFF being where the stub begins in the line
// without that field (`{"$blobs":[...],` read as `{`), in ascending
// order. The digest chain covers the line as written, the stubs and
// the digests; each blob is checked against its digest when it is read
// back. The same string in several records, or twice in one (an input
// in the header's inputs and its request, a result passed on to the
// run's result), is one file.

// BlobThreshold is the length from which a JSON string of a record is
// kept beside the journal rather than in it.
const BlobThreshold = 64 << 10

// BlobsVersion is the first format version that keeps large values
// beside the journal (and folds a call's process group into its "start").
const BlobsVersion = 5

// BlobDir is the directory of a run's large values, inside its run
// directory.
const BlobDir = "blobs"

const (
	blobsKey  = `{"$blobs":[`
	blobStub  = `"$blob"`
	digestLen = 2 * sha256.Size
)

// blobRef is one string kept beside the journal: where its stub is in
// the line (without the "$blobs" field) and the digest of its bytes.
type blobRef struct {
	off int
	sum string
}

// blobStore writes a run's large values.
type blobStore struct {
	dir string

	mu      sync.Mutex
	have    map[string]bool // written or found whole by this writer
	pending []string        // written since the last fsync
	made    bool            // dir exists
	// known is what is known of long strings by their identity (where
	// their bytes are and how many): their digest, and whether a blob
	// holds them. The store holds each such string, so its bytes cannot
	// be reused for another while it is in known: the same identity is
	// the same bytes. A long string the run passes on (an input given to
	// a call, a result returned) is so hashed and written once, however
	// many records hold it. Bounded: the oldest are forgotten first.
	known     map[strID]strFacts
	order     []strID
	heldBytes int
	hashes    int // long strings hashed (for tests)
}

// strID is a string's identity.
type strID struct {
	p *byte
	n int
}

func idOf(s string) strID { return strID{unsafe.StringData(s), len(s)} }

// strFacts is what is known of a long string: the sha256 of its JSON
// text (the digest a blob of it is named by, and delegation.Sum of it),
// in hex and raw, and the length of that text.
type strFacts struct {
	sum  string
	raw  [sha256.Size]byte
	text int64
	held string // the string, held so that its identity stays its own
	// clear: its JSON text was found to hold none of the secrets it was
	// checked for (keepClear; a store checks for one run's).
	clear bool
}

// maxKnown and maxKnownBytes bound blobStore.known: the strings it
// holds that the run may no longer hold. The newest is kept whatever its
// length.
const (
	maxKnown      = 64
	maxKnownBytes = 64 << 20
)

// LongStringMin is the length from which a string is certainly longer
// than BlobThreshold once written (with its quotes), and so is kept
// beside the journal without being written into a line first (see
// Header.RequestLong).
const LongStringMin = BlobThreshold - 1

// longRef is a long string a line holds a stub for, where the stub
// begins in the line, and its digest once known.
type longRef struct {
	off int
	s   string
	sum string
}

func newBlobStore(runDir string) *blobStore {
	return &blobStore{dir: filepath.Join(runDir, BlobDir), have: map[string]bool{}, known: map[strID]strFacts{}}
}

// stubbable reports whether s is kept beside the journal without being
// written into the line: long enough, and not referring to a withheld
// secret (such a string stays in the line; see cut).
func stubbable(s string) bool {
	return len(s) >= LongStringMin && !strings.Contains(s, secretMark)
}

// lookup is what is known of the long string str: by its identity, or
// by its bytes when a string known by another identity holds the same
// (a result that echoes an input: comparing bytes costs a fraction of
// encoding and hashing them). Called with mu held.
func (s *blobStore) lookup(str string) (strFacts, bool) {
	id := idOf(str)
	if f, ok := s.known[id]; ok {
		return f, true
	}
	for _, k := range s.order {
		if f := s.known[k]; k.n == len(str) && f.held == str {
			s.remember(id, f)
			return f, true
		}
	}
	return strFacts{}, false
}

// factsLocked is what is known of the long string str, hashing it when
// nothing is (called with mu held).
func (s *blobStore) factsLocked(str string) strFacts {
	if f, ok := s.lookup(str); ok {
		return f
	}
	h := sha256.New()
	n, _ := delegation.WriteJSONString(h, str, make([]byte, 0, 64<<10))
	f := strFacts{text: n, held: str}
	h.Sum(f.raw[:0])
	f.sum = hex.EncodeToString(f.raw[:])
	s.hashes++
	s.remember(idOf(str), f)
	return f
}

// remember adds f to known, forgetting the oldest beyond maxKnown
// strings or maxKnownBytes.
func (s *blobStore) remember(id strID, f strFacts) {
	for len(s.order) > 0 && (len(s.order) >= maxKnown || s.heldBytes+id.n > maxKnownBytes) {
		s.heldBytes -= s.order[0].n
		delete(s.known, s.order[0])
		s.order = append(s.order[:0], s.order[1:]...)
	}
	s.known[id] = f
	s.order = append(s.order, id)
	s.heldBytes += id.n
}

// sumOf is delegation.Sum of the long string str, remembered by its
// identity; ok is false for a string above the value ceiling, which Sum
// refuses.
func (s *blobStore) sumOf(str string) (sum [sha256.Size]byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.factsLocked(str)
	return f.raw, f.text <= delegation.DefaultMaxValueBytes
}

// keep keeps the long string str in the store (once) and returns what is
// known of it: a string known (lookup) is neither hashed nor written
// again; another is encoded, hashed and written in one pass.
func (s *blobStore) keep(str string) (strFacts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keepLocked(str)
}

func (s *blobStore) keepLocked(str string) (strFacts, error) {
	f, ok := s.lookup(str)
	if ok && s.have[f.sum] {
		return f, nil
	}
	f, err := s.writeString(str)
	if err != nil {
		return strFacts{}, err
	}
	s.hashes++
	if _, dup := s.known[idOf(str)]; !dup {
		s.remember(idOf(str), f)
	}
	return f, nil
}

// writeString writes str's JSON text to its blob, hashing it as it
// goes, under a temporary name renamed into place once its digest is
// known (called with mu held).
func (s *blobStore) writeString(str string) (strFacts, error) {
	f, _, err := s.writeChecked(str, nil)
	return f, err
}

// writeChecked is writeString looking for secrets in the text as it
// goes: when one is found, nothing is kept (the temporary file is
// removed before it has a name) and found is true.
func (s *blobStore) writeChecked(str string, secrets []string) (_ strFacts, found bool, _ error) {
	if err := s.mkdir(); err != nil {
		return strFacts{}, false, err
	}
	t, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return strFacts{}, false, fmt.Errorf("journal: keeping a large value: %w", err)
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(t, 256<<10)
	var w io.Writer = io.MultiWriter(h, bw)
	var sp *spotter
	if len(secrets) > 0 {
		sp = newSpotter(secrets)
		w = io.MultiWriter(sp, h, bw) // the spotter first: a secret goes no further
	}
	n, err := delegation.WriteJSONString(w, str, make([]byte, 0, 64<<10))
	if sp != nil && sp.found {
		t.Close()
		os.Remove(t.Name())
		return strFacts{}, true, nil
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	f := strFacts{text: n, held: str, clear: sp != nil}
	h.Sum(f.raw[:0])
	f.sum = hex.EncodeToString(f.raw[:])
	path := filepath.Join(s.dir, f.sum)
	if err == nil {
		err = os.Rename(t.Name(), path)
	}
	if err != nil {
		os.Remove(t.Name())
		return strFacts{}, false, fmt.Errorf("journal: keeping a large value: %w", err)
	}
	if !s.have[f.sum] {
		s.have[f.sum] = true
		s.pending = append(s.pending, path)
	}
	return f, false, nil
}

// keepClear is keep for a string whose text must hold none of secrets
// (a result, whose record withholds the environment's secrets): a string
// whose text holds one is not kept, and clear is false. A string kept
// before and not yet checked is checked without being written again.
func (s *blobStore) keepClear(str string, secrets []string) (_ strFacts, clear bool, _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.lookup(str)
	if ok && s.have[f.sum] {
		if !f.clear {
			sp := newSpotter(secrets)
			delegation.WriteJSONString(sp, str, make([]byte, 0, 64<<10))
			if sp.found {
				return strFacts{}, false, nil
			}
			f.clear = true
			for id, k := range s.known { // every identity of these bytes
				if k.sum == f.sum {
					k.clear = true
					s.known[id] = k
				}
			}
		}
		return f, true, nil
	}
	f, found, err := s.writeChecked(str, secrets)
	if err != nil || found {
		return strFacts{}, false, err
	}
	s.hashes++
	if _, dup := s.known[idOf(str)]; !dup {
		s.remember(idOf(str), f)
	} else {
		s.known[idOf(str)] = f
	}
	return f, true, nil
}

// errSpotted stops a text's writing at a secret.
var errSpotted = errors.New("journal: the text holds a secret")

// spotter looks for any of its secrets in a text written to it in
// pieces, across the pieces' bounds too.
type spotter struct {
	secrets [][]byte
	long    int // the longest secret's length
	tail    []byte
	found   bool
}

func newSpotter(secrets []string) *spotter {
	sp := &spotter{}
	for _, v := range secrets {
		sp.secrets = append(sp.secrets, []byte(v))
		sp.long = max(sp.long, len(v))
	}
	return sp
}

func (sp *spotter) Write(p []byte) (int, error) {
	if sp.found {
		return 0, errSpotted
	}
	edge := append(sp.tail, p[:min(len(p), sp.long)]...) // a secret across the bound is in here
	for _, v := range sp.secrets {
		if bytes.Contains(p, v) || bytes.Contains(edge, v) {
			sp.found = true
			return 0, errSpotted
		}
	}
	if len(p) >= sp.long {
		sp.tail = append(sp.tail[:0], p[len(p)-sp.long:]...)
	} else if sp.tail = append(sp.tail, p...); len(sp.tail) > sp.long {
		sp.tail = append(sp.tail[:0], sp.tail[len(sp.tail)-sp.long:]...)
	}
	return len(p), nil
}

func (s *blobStore) mkdir() error {
	if !s.made {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		s.made = true
	}
	return nil
}

// takePending returns the blobs written since it was last called.
func (s *blobStore) takePending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending
	s.pending = nil
	return p
}

// stubber collects the long strings a record's encoder left out of its
// line (a stub in their place), to be kept beside the journal; nil
// writes every string in the line.
type stubber struct{ refs []longRef }

// str appends s as a JSON string, or its stub when it is kept beside the
// journal.
func (st *stubber) str(b []byte, s string) []byte {
	if st == nil || !stubbable(s) {
		return appendString(b, s)
	}
	st.refs = append(st.refs, longRef{off: len(b), s: s})
	return append(b, blobStub...)
}

// cut returns body (one record's JSON object) with each string longer
// than BlobThreshold kept in the store and replaced by a stub, the
// "$blobs" field in front; body itself when it has none. pre are the
// stubs body already holds (stubber), ascending; their strings are kept
// here, unless their digests are known. A string that refers to a
// withheld secret stays in the line, where the readers that look for
// such references (scanIndexed, refersToSecret) find it.
func (s *blobStore) cut(body []byte, pre []longRef) ([]byte, error) {
	if len(body) <= BlobThreshold && len(pre) == 0 {
		return body, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var refs []blobRef
	var cutLits [][]byte // the strings of refs (nil for pre's)
	var out []byte
	from := 0
	for i := 0; i < len(body); i++ {
		k := bytes.IndexByte(body[i:], '"')
		if k < 0 {
			break
		}
		i += k
		if len(pre) > 0 && pre[0].off == i {
			p := pre[0]
			pre = pre[1:]
			if p.sum == "" {
				f, err := s.keepLocked(p.s)
				if err != nil {
					return nil, err
				}
				p.sum = f.sum
			}
			cutLits = append(cutLits, nil)
			out = append(out, body[from:i]...)
			refs = append(refs, blobRef{off: len(out), sum: p.sum})
			out = append(out, blobStub...)
			from = i + len(blobStub)
			i = from - 1
			continue
		}
		j := closingQuote(body, i)
		if j < 0 {
			return nil, errors.New("journal: a record's JSON ends inside a string")
		}
		lit := body[i : j+1]
		if len(lit) > BlobThreshold && !bytes.Contains(lit, []byte(secretMark)) {
			sum := ""
			for k, r := range refs { // the same string again: not hashed again
				if len(cutLits[k]) == len(lit) && bytes.Equal(cutLits[k], lit) {
					sum = r.sum
					break
				}
			}
			if sum == "" {
				var err error
				if sum, err = s.put(lit); err != nil {
					return nil, err
				}
			}
			cutLits = append(cutLits, lit)
			out = append(out, body[from:i]...)
			refs = append(refs, blobRef{off: len(out), sum: sum})
			out = append(out, blobStub...)
			from = j + 1
		}
		i = j
	}
	if len(pre) > 0 {
		return nil, errors.New("journal: a long string's stub is not where its record's encoder said")
	}
	if refs == nil {
		return body, nil
	}
	out = append(out, body[from:]...)
	head := []byte(blobsKey)
	for k, r := range refs {
		if k > 0 {
			head = append(head, ',')
		}
		head = append(head, '[')
		head = strconv.AppendInt(head, int64(r.off), 10)
		head = append(head, ',', '"')
		head = append(head, r.sum...)
		head = append(head, '"', ']')
	}
	head = append(head, ']')
	if len(out) > 2 { // not an empty object
		head = append(head, ',')
	}
	return append(head, out[1:]...), nil
}

// closingQuote is the index of the quote that ends the JSON string
// opening at b[i], -1 when there is none: the next quote not escaped
// (after an even number of backslashes).
func closingQuote(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for n < j-i-1 && b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j
		}
	}
	return -1
}

// put keeps lit in the store (once) and returns its digest. The file is
// written whole under a temporary name and renamed into place, so a
// killed process leaves no part of one under its name; it is fsynced
// with the next fsync of the journal, before it (writer.sync). Called
// with mu held.
func (s *blobStore) put(lit []byte) (string, error) {
	d := sha256.Sum256(lit)
	sum := hex.EncodeToString(d[:])
	if s.have[sum] {
		return sum, nil
	}
	path := filepath.Join(s.dir, sum)
	// filekind: a named pipe in the blob's place (a damaged run
	// directory) is replaced by the rename below, not waited on.
	if b, err := filekind.ReadFile(path); err == nil && sha256.Sum256(b) == d {
		s.have[sum] = true // kept by an earlier session
		return sum, nil
	}
	if err := s.mkdir(); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("journal: keeping a large value: %w", err)
	}
	_, err = f.Write(lit)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("journal: keeping a large value: %w", err)
	}
	s.have[sum] = true
	s.pending = append(s.pending, path)
	return sum, nil
}

// syncFiles fsyncs paths and, when there are any, their directory.
func syncFiles(dir string, paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("journal: syncing %s: %w", p, err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("journal: syncing %s: %w", p, err)
		}
	}
	if len(paths) > 0 {
		syncDir(dir)
	}
	return nil
}

// splitBlobs reads the "$blobs" field that begins line, if any: the
// references, and the line without the field. A line without one is
// returned as it is.
func splitBlobs(line []byte) (refs []blobRef, rest []byte, err error) {
	if !bytes.HasPrefix(line, []byte(blobsKey)) {
		return nil, line, nil
	}
	bad := errors.New(`its "$blobs" field is not a list of [offset, "sha256"] pairs`)
	i := len(blobsKey)
	for {
		if i >= len(line) || line[i] != '[' {
			return nil, nil, bad
		}
		i++
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		off, perr := strconv.Atoi(string(line[i:j]))
		if perr != nil || j-i > 12 || j+2+digestLen+2 > len(line) || line[j] != ',' || line[j+1] != '"' {
			return nil, nil, bad
		}
		sum := string(line[j+2 : j+2+digestLen])
		if !isHexDigest(sum) || line[j+2+digestLen] != '"' || line[j+3+digestLen] != ']' {
			return nil, nil, bad
		}
		if len(refs) > 0 && off < refs[len(refs)-1].off+len(blobStub) {
			return nil, nil, errors.New(`its "$blobs" offsets are not ascending`)
		}
		refs = append(refs, blobRef{off: off, sum: sum})
		i = j + 4 + digestLen
		if i < len(line) && line[i] == ',' {
			i++
			continue
		}
		break
	}
	if i >= len(line) || line[i] != ']' {
		return nil, nil, bad
	}
	i++
	switch {
	case i < len(line) && line[i] == ',':
		rest = append([]byte{'{'}, line[i+1:]...)
	case i < len(line) && line[i] == '}':
		rest = []byte("{}")
	default:
		return nil, nil, bad
	}
	for _, r := range refs {
		if r.off+len(blobStub) > len(rest) || string(rest[r.off:r.off+len(blobStub)]) != blobStub {
			return nil, nil, errors.New(`a "$blobs" offset does not point at a "$blob" stub`)
		}
	}
	return refs, rest, nil
}

func isHexDigest(s string) bool {
	if len(s) != digestLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// BlobError is a large value of a journal that cannot be read back: its
// file (Path) is missing, unreadable, or does not match its digest.
type BlobError struct {
	Path string
	Err  error
}

func (e *BlobError) Error() string {
	return fmt.Sprintf("the large value kept in %s %v: the run directory was damaged or edited, and prose refuses to resume or replay it", e.Path, e.Err)
}

func (e *BlobError) Unwrap() error { return e.Err }

// restoreBlobs is the line rest (without its "$blobs" field) with each
// stub replaced by its string, read from dir and checked against its
// digest.
func restoreBlobs(dir string, rest []byte, refs []blobRef) ([]byte, error) {
	if dir == "" {
		return nil, errors.New("it refers to a large value kept beside the journal, and the journal was not read from its run directory")
	}
	var out []byte
	from := 0
	for _, r := range refs {
		path := filepath.Join(dir, BlobDir, r.sum)
		b, err := readBlob(path, r.sum)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]byte, 0, len(rest)+len(b)*len(refs))
		}
		out = append(out, rest[from:r.off]...)
		out = append(out, b...)
		from = r.off + len(blobStub)
	}
	return append(out, rest[from:]...), nil
}

// readBlob reads the blob at path and checks it against sum: the bytes
// of one JSON string.
func readBlob(path, sum string) ([]byte, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &BlobError{Path: path, Err: errors.New("is missing")}
	case err != nil:
		return nil, &BlobError{Path: path, Err: err}
	case !st.Mode().IsRegular():
		return nil, &BlobError{Path: path, Err: errors.New("is not a regular file")}
	case st.Size() > int64(maxBlobBytes):
		return nil, &BlobError{Path: path, Err: fmt.Errorf("is larger than a journaled value may be (%d bytes)", int64(maxBlobBytes))}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &BlobError{Path: path, Err: err}
	}
	d := sha256.Sum256(b)
	if hex.EncodeToString(d[:]) != sum {
		return nil, &BlobError{Path: path, Err: errors.New("does not match its digest (its name)")}
	}
	if !oneString(b) {
		return nil, &BlobError{Path: path, Err: errors.New("is not one JSON string")}
	}
	return b, nil
}

// oneString reports whether b is one JSON string literal: quotes at
// both ends and none unescaped between them (what it holds is checked
// when the record it is put back into is decoded).
func oneString(b []byte) bool {
	if len(b) < 2 || b[0] != '"' {
		return false
	}
	i := 1
	for i < len(b) && b[i] != '"' {
		if b[i] == '\\' {
			i++
		}
		i++
	}
	return i == len(b)-1
}

// maxBlobBytes bounds one blob: a string no longer than the largest value
// ceiling a record may hold, escaped.
const maxBlobBytes = 1 << 31
