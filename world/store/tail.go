package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/world/canon"
)

// The failed tail (decided). A node whose renders failed keeps its last
// receipt (failed) and its last non-failed one apart in its index entry;
// when more than one receipt failed since, the entry alone does not say
// that none of those in between was non-failed, and an entry edited to
// name an older non-failed receipt (checksum recomputed) would decide the
// drain from a key the node no longer stands on. Reading and decoding the
// whole ledger to tell made every later process pay for every failure in
// the node's history, on each of its reads.
//
// So the entry records where the last non-failed receipt's line ends in
// the ledger (ok_end), and vouched reads the ledger from there to its end
// (the failed tail alone) and checks it without decoding it: each line
// must be a failed receipt of the node and hash to the prev of the line
// after it, the last line to the last receipt's hash (the one the head
// record names), and the prev of the first must be the hash of the
// entry's last non-failed receipt ("" when the node has none: then the
// tail is the whole ledger, read from its start). The hashes pin each receipt's content, so what
// the tail says of a receipt (its status, its prev) is what that receipt
// says, wherever the bytes came from: an ok_end pointed elsewhere, a line
// edited or a receipt left out is a chain that does not close, and the
// node's receipts are read from its ledger as before. The tail's
// signatures are not checked: its receipts are pinned by their hashes from
// the last one, whose signature is (with the head's, in a signed store).
// This costs one read of the tail's bytes and a sha256 of each of its
// lines, not a decode.

// failedTail reports whether node's ledger, from e's ok_end (from its
// start when e has no non-failed receipt) to the size e recorded, is the
// failed receipts after e.LastOK, the last of them e.Last. e's receipts
// were checked by their hashes; the head record names e.Last. idx.mu is
// held: the bytes are read into the index's buffer, reused from node to
// node.
func (s *Store) failedTail(node string, e *indexEntry) bool {
	from := e.OKEnd
	if e.LastOK == nil {
		from = 0
	} else if from <= 0 {
		return false // an entry written before ok_end was recorded
	}
	to := e.Ledger.Size
	if from >= to {
		return false
	}
	b, err := readRange(s.LedgerPath(node), from, to, s.idx.tail[:0])
	if err != nil {
		return false
	}
	s.idx.tail = b
	if b[len(b)-1] != '\n' {
		return false
	}
	var quoted bytes.Buffer
	canon.WriteString(&quoted, node)
	// From the first line on: each prev the hash the line before gives
	// (the first's the last non-failed receipt's), the last line's hash
	// the last receipt's. The chain is pinned at both ends.
	lh := newLineHasher()
	want := ""
	if e.LastOK != nil {
		want = e.LastOK.Hash
	}
	var prevHash [len(lh.text)]byte
	last := prevHash[:0]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		h, prev, ok := lh.failedLine(b[:i], quoted.Bytes())
		if !ok {
			return false
		}
		if len(last) == 0 && string(prev) != want || len(last) > 0 && !bytes.Equal(prev, last) {
			return false
		}
		last = append(prevHash[:0], h...)
		b = b[i+1:]
	}
	return string(last) == e.Last.Hash
}

// readRange reads bytes from to to of the regular file p, into buf's
// room when it has enough.
func readRange(p string, from, to int64, buf []byte) ([]byte, error) {
	f, err := filekind.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := int(to - from)
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, from); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// lineHasher is what failedLine reuses from line to line.
type lineHasher struct {
	sum  hash.Hash
	text [len("sha256:") + 2*sha256.Size]byte
}

func newLineHasher() *lineHasher {
	lh := &lineHasher{sum: sha256.New()}
	copy(lh.text[:], "sha256:")
	return lh
}

// failedLine reads one ledger line as a failed receipt of the node whose
// id is quoted (its canonical JSON string), without decoding it: hash is
// the receipt's hash as its content gives it (the sha256 of the line
// without its members hash, key and sig: the line is canonical JSON,
// members in order, as Append writes it, and the hash covers the same
// JSON without those three), prev its prev; both are valid until the
// next call. ok is false unless the line is one object whose top-level
// members each occur once, of format 1.0 or 1.1, status "failed", node
// quoted and a prev without escapes. The line's own hash member is not
// read: the caller compares hash with the hash it expects, and a line not
// written canonically hashes to something else.
func (lh *lineHasher) failedLine(line, quoted []byte) (hash, prev []byte, ok bool) {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return nil, nil, false
	}
	sum := lh.sum
	sum.Reset()
	sum.Write(line[:1])
	var status, format, node, prevRaw []byte
	var seen uint8
	first := true
	i := 1
	for {
		start := i
		if line[i] != '"' {
			return nil, nil, false
		}
		k, ok := skipString(line, i)
		if !ok || k >= len(line) || line[k] != ':' {
			return nil, nil, false
		}
		key := line[i+1 : k-1]
		v := k + 1
		end, ok := skipValue(line, v)
		if !ok || end >= len(line) {
			return nil, nil, false
		}
		val := line[v:end]
		bit := uint8(0)
		switch string(key) {
		case "hash":
			bit = 1
		case "key":
			bit = 2
		case "sig":
			bit = 4
		case "status":
			bit, status = 8, val
		case "format":
			bit, format = 16, val
		case "node":
			bit, node = 32, val
		case "prev":
			bit, prevRaw = 64, val
		}
		if seen&bit != 0 {
			return nil, nil, false
		}
		seen |= bit
		if bit > 4 || bit == 0 {
			if !first {
				sum.Write(line[start-1 : start]) // the comma before
			}
			sum.Write(line[start:end])
			first = false
		}
		switch line[end] {
		case ',':
			i = end + 1
			continue
		case '}':
			if end != len(line)-1 {
				return nil, nil, false
			}
		default:
			return nil, nil, false
		}
		break
	}
	sum.Write(line[len(line)-1:])
	if string(status) != `"failed"` || string(format) != `"1.1"` && string(format) != `"1.0"` || !bytes.Equal(node, quoted) ||
		len(prevRaw) < 2 || bytes.IndexByte(prevRaw, '\\') >= 0 {
		return nil, nil, false
	}
	var d [sha256.Size]byte
	hex.Encode(lh.text[len("sha256:"):], sum.Sum(d[:0]))
	return lh.text[:], prevRaw[1 : len(prevRaw)-1], true
}

// skipValue is the index just past the JSON value that starts at b[i]
// (a string, an object, an array or a literal), read as canonical JSON
// is written (no white space); ok is false when it does not end within
// b. It tells strings and nesting apart and nothing more: what it
// delimits is trusted only by the hash of the bytes.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var ok bool
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' && b[j] != '"' && b[j] != '{' && b[j] != '[' {
		j++
	}
	return j, j > i
}

// skipString is the index just past the string that starts at b[i]:
// the first quote after it that an odd run of backslashes does not
// escape.
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), false
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
}
