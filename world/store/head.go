package store

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/world/receipt"
)

// Head records (decided, format 1.1): NODE/head.json says what the
// ledger held when its last receipt was committed: how many receipts,
// the last one's hash, the ledger's size in bytes and the sha256 of
// those bytes. It is written after the ledger (and, empty, before the
// ledger's first line), so the ledger is the head's bytes plus at most
// the receipts a kill kept from being recorded in it, each chained to the
// one before. A ledger that is not its head's bytes was rewritten or cut
// after it was committed (an edit, an older copy restored), even when its
// chain still holds; a drain refuses it, and so does verify.
//
// The head is the checkpoint a drain checks from: the bytes up to it are
// compared by one digest, the receipts after it one by one, so a drain
// does not re-check the whole history.
//
// In a signed store the head is signed too (Key, Sig: the signature of
// its Text), by the drain that wrote it: a checkpoint a writer without
// the key cannot move. A drain checks from a head only when it is signed
// by the store's key; otherwise it checks the whole ledger.
type head struct {
	Receipts int    `json:"receipts"`
	Hash     string `json:"hash"`
	Size     int64  `json:"size"`
	Digest   string `json:"digest"`
	Key      string `json:"key,omitempty"`
	Sig      string `json:"sig,omitempty"`
}

// text is what a head's signature covers.
func (h *head) text() []byte {
	return []byte(fmt.Sprintf("prose-world head %d %s %d %s", h.Receipts, h.Hash, h.Size, h.Digest))
}

// signedBy reports whether h is signed, validly, by the key of
// fingerprint fp.
func (h *head) signedBy(fp string) bool {
	pub, err := hex.DecodeString(h.Key)
	if fp == "" || err != nil || len(pub) != ed25519.PublicKeySize || receipt.Fingerprint(pub) != fp {
		return false
	}
	sig, err := base64.StdEncoding.DecodeString(h.Sig)
	return err == nil && ed25519.Verify(pub, h.text(), sig)
}

// HeadPath is node's head record.
func (s *Store) HeadPath(node string) string {
	return filepath.Join(s.nodeDir(node), "head.json")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeHead records ledger (the ledger's whole bytes, whose last receipt
// is last) as node's head.
func (s *Store) writeHead(node string, ledger []byte, last string) error {
	return s.writeHeadIn(s.nodeDir(node), ledger, last)
}

// writeHeadIn is writeHead for the node directory dir.
func (s *Store) writeHeadIn(dir string, ledger []byte, last string) error {
	h := head{Receipts: lines(ledger), Hash: last, Size: int64(len(ledger)), Digest: digest(ledger)}
	if s.sign != nil {
		h.Key = hex.EncodeToString(s.sign.Public().(ed25519.PublicKey))
		h.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(s.sign, h.text()))
	}
	b, _ := json.Marshal(h)
	return s.writeAtomic(filepath.Join(dir, "head.json"), append(b, '\n'))
}

// lines counts the lines of b that are not blank, as parseLedger reads
// them.
func lines(b []byte) int {
	n := 0
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// vouches reports whether h tells the truth of the bytes it covers: the
// first h.Size bytes of b (the ledger) hold h.Receipts receipts, the last
// of hash h.Hash, as writeHeadIn wrote it (decided). A head edited by hand
// with its size and digest left as they were (its count or its hash
// changed) does not: a drain refuses the node rather than extend it and
// write a true head over the edit (verify would have named it, the next
// one could not), and repair rewrites it only with --accept.
func (h *head) vouches(b []byte) bool {
	if h.Size > int64(len(b)) {
		return false
	}
	part := b[:h.Size]
	if lines(part) != h.Receipts {
		return false
	}
	if h.Receipts == 0 {
		return h.Hash == ""
	}
	r := h.last(b)
	return r != nil && r.Hash == h.Hash
}

// last is the last receipt of the bytes h covers (nil when they hold
// none, or it does not read).
func (h *head) last(b []byte) *receipt.Receipt {
	if h.Size > int64(len(b)) {
		return nil
	}
	last := bytes.TrimSpace(b[:h.Size])
	if i := bytes.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	if len(last) == 0 {
		return nil
	}
	r, err := receipt.Parse(last)
	if err != nil {
		return nil
	}
	return r
}

// readHead reads a node directory's head record (nil when it has none).
func readHead(p string) (*head, error) {
	b, err := readFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var h head
	if err := json.Unmarshal(b, &h); err != nil || h.Receipts < 0 || h.Size < 0 ||
		!isDigest(h.Digest) || !(isDigest(h.Hash) || h.Hash == "" && h.Receipts == 0) {
		return nil, fmt.Errorf("%s: not a head record (restore it, or rebuild it from the ledger, taken as it is, with prose receipts repair --accept %s)", p, unescape(filepath.Base(filepath.Dir(p))))
	}
	return &h, nil
}

// isDigest reports whether s is a digest as a head record writes one:
// "sha256:" and 64 lower-case hex digits. A head whose hash or digest is
// not one was edited, and is named as such, not taken for a ledger that
// moved.
func isDigest(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
