package store

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// tailStore is a store of node "n" whose receipts have statuses (each a
// render publishes, as a drain does), its index saved, written well after
// the files (not an entry whose files moved within the clock's
// granularity of the index); and its receipts.
func tailStore(t *testing.T, statuses ...receipt.Status) (*Store, []*receipt.Receipt) {
	return signedTailStore(t, nil, statuses...)
}

// signedTailStore is tailStore, signed by key (nil: unsigned).
func signedTailStore(t *testing.T, key ed25519.PrivateKey, statuses ...receipt.Status) (*Store, []*receipt.Receipt) {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second as the store's signer
		if err := s.Extend(key); err != nil {
			t.Fatal(err)
		}
	}
	prev, version := "", ""
	var rs []*receipt.Receipt
	for i, status := range statuses {
		truth, _ := canon.Decode([]byte(fmt.Sprintf(`{"f": %d}`, i)))
		r := &receipt.Receipt{Node: "n", Drain: i + 1, Seq: 1, Status: status, Version: version, Prev: prev}
		if status != receipt.Failed {
			r.Version, _ = s.PutVersion("n", truth)
		} else {
			r.Reason = fmt.Sprintf(`render %d failed: "status":"rendered"}`, i)
		}
		r.Seal(key)
		if _, err := s.Standing("n"); err != nil {
			t.Fatal(err)
		}
		if err := s.Append("n", r); err != nil {
			t.Fatal(err)
		}
		if status != receipt.Failed {
			if err := s.Publish("n", truth, nil); err != nil {
				t.Fatal(err)
			}
		}
		prev, version, rs = r.Hash, r.Version, append(rs, r)
	}
	if err := s.SaveIndex(); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(s.IndexPath(), later, later); err != nil {
		t.Fatal(err)
	}
	return s, rs
}

// drainReads opens the store anew and reads what a drain reads of node n
// before it plans it (the check before the drain, its standing and its
// receipts, the repair of its published files), returning the Store and
// how many whole ledgers that read.
func drainReads(t *testing.T, dir string, key ed25519.PrivateKey) (*Store, uint64) {
	t.Helper()
	fresh, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Extend(key); err != nil {
		t.Fatal(err)
	}
	sd, err := fresh.Standing("n")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sd.Receipts(); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Repair("n", nil); err != nil {
		t.Fatal(err)
	}
	return fresh, fresh.ledgerReads.Load()
}

// TestFailedTailReadsNoLedger: a process that opens a store whose node's
// last receipts failed, several of them since its last non-failed one,
// reads no ledger whole, as for a node whose last receipt rendered;
// before, the index entry of such a node was not vouched for, and each
// process read and decoded its whole ledger, once for the check before
// the drain, once for its standing and once for the repair of its
// published files, whatever the number of failures.
func TestFailedTailReadsNoLedger(t *testing.T) {
	R, F := receipt.Rendered, receipt.Failed
	for _, statuses := range [][]receipt.Status{
		{R, R},
		{R, F},
		{R, R, F, F},
		{R, F, R, F, F, F, F, F},
		{F, F, F},
	} {
		t.Run(fmt.Sprint(statuses), func(t *testing.T) {
			s, _ := tailStore(t, statuses...)
			fresh, reads := drainReads(t, s.Dir, nil)
			if reads != 0 {
				t.Fatalf("a process opening the store read %d whole ledgers, want none", reads)
			}
			wantStanding(t, fresh)
		})
	}
	t.Run("signed", func(t *testing.T) {
		_, key, _ := ed25519.GenerateKey(nil)
		s, _ := signedTailStore(t, key, R, F, F, F)
		fresh, reads := drainReads(t, s.Dir, key)
		if reads != 0 {
			t.Fatalf("a process opening the signed store read %d whole ledgers, want none", reads)
		}
		wantStanding(t, fresh)
	})
}

// TestFailedTailForgedIsNotBelieved: an index entry of a node whose last
// receipts failed, edited to name an older non-failed receipt (with the
// ledger offset where its line ends, or not), or none, or with its ok_end
// pointed elsewhere, checksum recomputed and the files untouched, is not
// believed: the node's standing is its ledger's.
func TestFailedTailForgedIsNotBelieved(t *testing.T) {
	for _, forge := range []struct {
		name string
		edit func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64)
	}{
		{"an older non-failed receipt", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			e["last_ok"], _ = json.Marshal(rs[0])
		}},
		{"an older non-failed receipt and where its line ends", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			e["last_ok"], _ = json.Marshal(rs[0])
			e["ok_end"], _ = json.Marshal(ends[0])
		}},
		{"no non-failed receipt", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			delete(e, "last_ok")
			delete(e, "ok_end")
		}},
		{"ok_end past a failed receipt", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			e["ok_end"], _ = json.Marshal(ends[2])
		}},
		{"ok_end inside a line", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			e["ok_end"], _ = json.Marshal(ends[1] + 1)
		}},
		{"ok_end past the ledger", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			e["ok_end"], _ = json.Marshal(ends[len(ends)-1] + 10)
		}},
		{"ok_end negative", func(e map[string]json.RawMessage, rs []*receipt.Receipt, ends []int64) {
			e["ok_end"], _ = json.Marshal(-5)
		}},
	} {
		t.Run(forge.name, func(t *testing.T) {
			s, rs := tailStore(t, receipt.Rendered, receipt.Rendered, receipt.Failed, receipt.Failed, receipt.Failed)
			ledger, err := os.ReadFile(s.LedgerPath("n"))
			if err != nil {
				t.Fatal(err)
			}
			var ends []int64
			for i := range rs {
				ends = append(ends, lineEnd(ledger, i+1))
			}
			b, err := os.ReadFile(s.IndexPath())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(fmt.Sprintf(`"ok_end":%d`, ends[1]))) {
				t.Fatalf("the entry does not record where the last non-failed receipt's line ends (%d):\n%s", ends[1], b)
			}
			fresh := forgeIndex(t, s, b, func(e map[string]json.RawMessage) { forge.edit(e, rs, ends) })
			if err := fresh.Extend(nil); err != nil {
				t.Fatal(err)
			}
			if fresh.ledgerReads.Load() == 0 {
				t.Fatal("the forged entry was believed: no ledger was read")
			}
			wantStanding(t, fresh)
		})
	}
}

// TestFailedTailOfAnEditedLedger: a failed receipt of the tail edited in
// the ledger (its reason), and the entry's identity of the ledger edited
// to the file's new one, checksum recomputed: the tail does not chain, so
// the drain checks the ledger from its head, and refuses it.
func TestFailedTailOfAnEditedLedger(t *testing.T) {
	s, _ := tailStore(t, receipt.Rendered, receipt.Failed, receipt.Failed, receipt.Failed)
	p := s.LedgerPath("n")
	ledger, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(ledger, []byte("render 2 failed"), []byte("render 2 passed"), 1)
	if bytes.Equal(edited, ledger) {
		t.Fatal("no receipt to edit")
	}
	if err := os.WriteFile(p, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	fresh := forgeIndex(t, s, b, func(e map[string]json.RawMessage) {
		e["ledger"], _ = json.Marshal(statID(p))
	})
	if err := fresh.Extend(nil); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Extend of a store whose failed tail was edited, the entry's identity forged: %v; want a refusal naming %s", err, p)
	}
}

// TestFailedLineIsTheReceipt: failedLine reads a ledger line as the
// receipt it is: the hash its content gives (the receipt's own) and its
// prev, for a failed receipt only, whatever its texts hold (quotes,
// braces, escapes, a member name inside a text or as an input's key),
// signed or not, of format 1.1 or 1.0.
func TestFailedLineIsTheReceipt(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	for _, tc := range []struct {
		reason, input  string
		signed, legacy bool
	}{
		{"plain", "a<-b.c", false, false},
		{`"status":"rendered","x":{"y":[1,"}"]}`, "status", false, false},
		{"\\\"}\u0001\u2028é", `"prev":"`, true, false},
		{"legacy", "a<-b.c", false, true},
		{"", "", true, true},
	} {
		for _, status := range []receipt.Status{receipt.Failed, receipt.Rendered, receipt.Skipped} {
			fuzzFailedLine(t, tc.reason, tc.input, "n/ode\"", string(status), "sha256:00", tc.signed, tc.legacy, key)
		}
	}
}

func FuzzFailedLine(f *testing.F) {
	_, key, _ := ed25519.GenerateKey(nil)
	f.Add("plain", "a<-b.c", "n", "failed", "", false, false)
	f.Add(`"status":"rendered"}`, "status", "n", "failed", "sha256:ab", true, false)
	f.Add("x", "y", "n", "rendered", "sha256:ab", false, true)
	f.Fuzz(func(t *testing.T, reason, input, node, status, prev string, signed, legacy bool) {
		newLineHasher().failedLine([]byte(reason), []byte(node)) // any bytes: no panic
		fuzzFailedLine(t, reason, input, node, status, prev, signed, legacy, key)
	})
}

// fuzzFailedLine builds the receipt the arguments describe, its ledger
// line as Append writes it, and checks failedLine's reading of the line
// against the receipt.
func fuzzFailedLine(t *testing.T, reason, input, node, status, prev string, signed, legacy bool, key ed25519.PrivateKey) {
	t.Helper()
	r := &receipt.Receipt{Node: node, Drain: 3, Seq: 2, Status: receipt.Status(status), Reason: reason, Prev: prev,
		Inputs: map[string]string{input: "sha256:" + reason}, Cost: receipt.Cost{DurationMS: 9, Model: reason}}
	var k ed25519.PrivateKey
	if signed {
		k = key
	}
	if err := r.Seal(k); err != nil {
		t.Skip(err)
	}
	if legacy {
		// A 1.0 receipt: its duration is in its line and under its hash.
		r.Format, r.Sig, r.Key = "1.0", "", ""
		line, err := r.Marshal()
		if err != nil {
			t.Skip(err)
		}
		v, err := canon.Decode(line)
		if err != nil {
			t.Skip(err)
		}
		delete(v.(map[string]any), "hash")
		body, err := canon.Marshal(v)
		if err != nil {
			t.Skip(err)
		}
		r.Hash = canon.Hash(body)
		if err := r.Check(nil); err != nil {
			t.Fatalf("the 1.0 receipt made does not check: %v", err)
		}
	}
	line, err := r.Marshal()
	if err != nil {
		t.Skip(err)
	}
	// The receipt as the ledger holds it (texts that are not UTF-8 are
	// spelled as encoding/json spells them, under the hash too).
	r, err = receipt.Parse(line)
	if err != nil || r.Check(nil) != nil {
		t.Skip("not a receipt that reads back:", err)
	}
	var quoted bytes.Buffer
	canon.WriteString(&quoted, r.Node)
	h, p, ok := newLineHasher().failedLine(line, quoted.Bytes())
	hash, gotPrev := string(h), string(p)
	wantOK := r.Status == receipt.Failed && !strings.ContainsAny(r.Prev, "\\\"") && !strings.ContainsFunc(r.Prev, func(c rune) bool { return c < 0x20 })
	if ok != wantOK || ok && (hash != r.Hash || gotPrev != r.Prev) {
		t.Fatalf("failedLine(%s) = %q, %q, %v; want %q, %q, %v", line, hash, gotPrev, ok, r.Hash, r.Prev, wantOK)
	}
	// Another node's receipt is not read as the node's.
	if ok && r.Node != "another" {
		if _, _, other := newLineHasher().failedLine(line, []byte(`"another"`)); other {
			t.Fatalf("failedLine read %s as a receipt of node \"another\"", line)
		}
	}
}
