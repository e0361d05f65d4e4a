// Package receipt is the record a node leaves each time a drain fires
// it: what woke it, what it read, what it published, what it cost, and a
// hash chaining it to the node's previous receipt.
//
// A Receipt's Hash is the sha256 of its canonical JSON (RFC 8785, package
// canon) without the hash and the signature; Prev is the Hash of the
// node's previous receipt ("" for the first). Seal computes the hash and,
// given an ed25519 key, signs it; Check verifies one receipt, Chain a
// node's ledger in order.
//
// Main types: Receipt, Wake, Cost. Entry points: (*Receipt).Seal,
// (*Receipt).Check, Chain.
package receipt

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/proselang/prose/world/canon"
)

// Format is the receipt format's version; a reader refuses a receipt of
// a newer major version.
//
// 1.1 keeps a render's duration out of the receipt: it is measured, not
// content, so a ledger regenerated from the same events is byte-identical
// (the store keeps durations beside the ledger). A 1.0 receipt's hash
// still covers its duration_ms.
const (
	FormatMajor = 1
	Format      = "1.1"
	legacy      = "1.0"
)

// Status is what a firing of a node did.
type Status string

// The statuses of a receipt.
const (
	Rendered Status = "rendered" // a new truth was rendered (it may equal the prior one)
	Skipped  Status = "skipped"  // the memo key was unchanged: nothing started
	Failed   Status = "failed"   // the render failed: the prior truth is kept
)

// String is the status as a receipt writes it.
func (s Status) String() string { return string(s) }

// Wake sources.
const (
	Boot     = "boot"     // no earlier receipt, or the node's contract changed
	Input    = "input"    // a subscribed part of a producer moved
	Self     = "self"     // the node's own recheck (prose run --tick NODE)
	External = "external" // events delivered to a gateway
)

// Receipt is one firing of one node.
type Receipt struct {
	Format string `json:"format"`
	Node   string `json:"node"`
	// Drain numbers the drains of a state directory that left receipts,
	// from 1; Seq orders the receipts of one drain (topological order,
	// then id).
	Drain int `json:"drain"`
	Seq   int `json:"seq"`
	// Contract is the fingerprint of what the render or Execution reads
	// of the node's spec.
	Contract string `json:"contract"`
	Wake     Wake   `json:"wake"`
	// Inputs maps each subscribed edge ("input<-producer.part") to the
	// fingerprint read; Events is the fingerprint of a gateway's events.
	Inputs map[string]string `json:"inputs"`
	Events string            `json:"events,omitempty"`
	// Memo is the memo key: the contract and the input fingerprints.
	Memo string `json:"memo"`
	// Facets maps each facet and "@atomic" to the fingerprint of the
	// truth this receipt leaves published.
	Facets map[string]string `json:"facets"`
	// Version is the content address of the published truth ("" while
	// the node has none).
	Version string `json:"version"`
	// Diff says what moved against the prior truth: the facets (and
	// "@atomic") whose fingerprints moved, and the top-level fields.
	Diff   Diff   `json:"diff"`
	Prev   string `json:"prev"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	Cost   Cost   `json:"cost"`
	// Run is the id of the journal that the render's run kept of its
	// calls, in the state directory's .runs/NODE/ ("" when it kept none).
	Run  string `json:"run,omitempty"`
	Hash string `json:"hash"`
	// Sig is the base64 ed25519 signature of Hash's bytes, Key the hex
	// public key; both absent without --sign-key.
	Sig string `json:"sig,omitempty"`
	Key string `json:"key,omitempty"`
}

// Wake is what fired a node.
type Wake struct {
	Source string `json:"source"`
	// Refs are the hashes of the receipts that woke it (its producers'
	// receipts of this drain), or of the events.
	Refs []string `json:"refs"`
}

// Diff is a semantic diff of a new truth against the prior one.
type Diff struct {
	Moved  []string `json:"moved"`
	Fields []string `json:"fields"`
}

// Cost is what a firing spent.
type Cost struct {
	Requests  int    `json:"requests"`
	TokensIn  int    `json:"tokens_in"`
	TokensOut int    `json:"tokens_out"`
	Programs  int    `json:"programs"`
	Model     string `json:"model,omitempty"`
	// DurationMS is how long the render took. Since format 1.1 it is
	// neither hashed nor written in the ledger line; the store keeps it
	// in NODE/durations.jsonl and Ledger fills it in.
	DurationMS int64 `json:"duration_ms,omitempty"`
}

// content is r as its hash and its ledger line hold it: without a
// duration, unless r is a 1.0 receipt.
func (r *Receipt) content() *Receipt {
	c := *r
	if c.Format != legacy {
		c.Cost.DurationMS = 0
	}
	return &c
}

// Seal sets Format and Hash and, with key, signs.
func (r *Receipt) Seal(key ed25519.PrivateKey) error {
	r.Format = Format
	if r.Inputs == nil {
		r.Inputs = map[string]string{}
	}
	if r.Facets == nil {
		r.Facets = map[string]string{}
	}
	if r.Wake.Refs == nil {
		r.Wake.Refs = []string{}
	}
	if r.Diff.Moved == nil {
		r.Diff.Moved = []string{}
	}
	if r.Diff.Fields == nil {
		r.Diff.Fields = []string{}
	}
	b, err := r.body()
	if err != nil {
		return err
	}
	r.Hash = canon.Hash(b)
	r.Sig, r.Key = "", ""
	if key != nil {
		r.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(key, []byte(r.Hash)))
		r.Key = hex.EncodeToString(key.Public().(ed25519.PublicKey))
	}
	return nil
}

// Marshal is the receipt as one canonical JSON line (no newline), as the
// ledger holds it (without its duration).
func (r *Receipt) Marshal() ([]byte, error) {
	raw, err := json.Marshal(r.content())
	if err != nil {
		return nil, err
	}
	v, err := canon.Decode(raw)
	if err != nil {
		return nil, err
	}
	return canon.Marshal(v)
}

// Parse reads one receipt line, refusing a newer major format.
func Parse(line []byte) (*Receipt, error) {
	var r Receipt
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("not a receipt: %v", err)
	}
	var major int
	if _, err := fmt.Sscanf(r.Format, "%d.", &major); err != nil {
		return nil, fmt.Errorf("receipt format %q is not MAJOR.MINOR", r.Format)
	}
	if major > FormatMajor {
		return nil, fmt.Errorf("receipt format %s is newer than this prose reads (%s): upgrade prose", r.Format, Format)
	}
	return &r, nil
}

// Check verifies r's hash and, when signed, its signature (and that the
// key is the trusted one, when trusted is set).
func (r *Receipt) Check(trusted ed25519.PublicKey) error {
	b, err := r.body()
	if err != nil {
		return err
	}
	if h := canon.Hash(b); h != r.Hash {
		return fmt.Errorf("its content does not match its hash (edited after it was sealed)")
	}
	if r.Sig == "" {
		if trusted != nil {
			return fmt.Errorf("it is not signed")
		}
		return nil
	}
	pub, err := hex.DecodeString(r.Key)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("its public key is malformed")
	}
	if trusted != nil && !ed25519.PublicKey(pub).Equal(trusted) {
		return fmt.Errorf("it is signed by another key (%s), not by the trusted key", r.Key)
	}
	sig, err := base64.StdEncoding.DecodeString(r.Sig)
	if err != nil || !ed25519.Verify(pub, []byte(r.Hash), sig) {
		return fmt.Errorf("its signature does not verify")
	}
	return nil
}

// Chain checks a node's ledger: each receipt by Check, each Prev the hash
// of the one before. It returns the index of the first bad receipt (-1
// when all are good) and why.
func Chain(rs []*Receipt, trusted ed25519.PublicKey) (int, error) {
	prev := ""
	for i, r := range rs {
		if err := r.Check(trusted); err != nil {
			return i, err
		}
		if r.Prev != prev {
			return i, fmt.Errorf("its prev %q is not the hash of the receipt before it (%q): the chain is torn", r.Prev, prev)
		}
		prev = r.Hash
	}
	return -1, nil
}
