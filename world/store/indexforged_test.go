package store

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"testing"
	"time"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// resum rewrites each line of an index whose body f changes, with its
// checksum recomputed: an edit by someone who knows the format.
func resum(t *testing.T, b []byte, f func(body []byte) []byte) []byte {
	t.Helper()
	var out []byte
	changed := false
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) < 10 {
			out = append(out, line...)
			continue
		}
		body := bytes.TrimSuffix(line[9:], []byte("\n"))
		nb := f(body)
		changed = changed || !bytes.Equal(nb, body)
		out = append(out, fmt.Sprintf("%08x %s\n", crc32.ChecksumIEEE(nb), nb)...)
	}
	if !changed {
		t.Fatalf("the edit changed no line of the index:\n%s", b)
	}
	return out
}

// forgeIndex rewrites s's index file b with edit applied to each entry,
// checksums recomputed, dated an hour after the files it describes (as a
// forger can, so not an entry whose files changed within the clock's
// granularity of the index), and opens the store anew.
func forgeIndex(t *testing.T, s *Store, b []byte, edit func(e map[string]json.RawMessage)) *Store {
	t.Helper()
	forged := resum(t, b, func(body []byte) []byte {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatal(err)
		}
		edit(e)
		out, _ := json.Marshal(e)
		return out
	})
	if err := os.WriteFile(s.IndexPath(), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(s.IndexPath(), later, later); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}

// TestIndexForgedWithItsChecksumIsNotBelieved: an index entry edited
// with its checksum recomputed and the files it describes untouched (their
// identities still the entry's) is not believed over them: its last
// receipt pointed at an older version of the node's truth, or replaced
// whole by an older receipt of the node, still gives the ledger's
// standing, so a drain never takes an old truth for the one published.
func TestIndexForgedWithItsChecksumIsNotBelieved(t *testing.T) {
	for _, forge := range []struct {
		name string
		edit func(t *testing.T, s *Store, body []byte) []byte
	}{
		{"version pointed back", func(t *testing.T, s *Store, body []byte) []byte {
			rs, _ := s.Ledger("n")
			return bytes.ReplaceAll(body, []byte(rs[2].Version), []byte(rs[0].Version))
		}},
		{"an older receipt", func(t *testing.T, s *Store, body []byte) []byte {
			rs, _ := s.Ledger("n")
			first, _ := json.Marshal(rs[0])
			last, _ := json.Marshal(rs[2])
			if !bytes.Contains(body, last) {
				t.Fatalf("the index line does not hold the last receipt as encoding/json writes it:\n%s\n%s", body, last)
			}
			return bytes.Replace(body, last, first, 1)
		}},
	} {
		t.Run(forge.name, func(t *testing.T) {
			s, b := indexedStore(t)
			forged := resum(t, b, func(body []byte) []byte { return forge.edit(t, s, body) })
			if err := os.WriteFile(s.IndexPath(), forged, 0o600); err != nil {
				t.Fatal(err)
			}
			// The files the entry describes are as it recorded them.
			if l := statID(s.LedgerPath("n")); l != s.idx.nodes["n"].Ledger {
				t.Fatalf("the ledger moved: %+v, the entry says %+v", l, s.idx.nodes["n"].Ledger)
			}
			fresh, err := Open(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.Extend(nil); err != nil {
				t.Fatal(err)
			}
			wantStanding(t, fresh)
		})
	}
}

// TestIndexForgedWithAHeadPutBack: the head record put back one receipt
// (its count, hash, size and digest those of the ledger without its last
// line, as a kill between a ledger and its head leaves it) and the entry
// edited to match it, with the files' identities of now and its checksum
// recomputed, is not believed: a head that does not cover the whole
// ledger is a ledger checked and read, so the standing is the ledger's.
func TestIndexForgedWithAHeadPutBack(t *testing.T) {
	s, b := indexedStore(t)
	rs, err := s.Ledger("n")
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := os.ReadFile(s.LedgerPath("n"))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(bytes.TrimSuffix(ledger, []byte("\n")), '\n') + 1
	if err := s.writeHead("n", ledger[:cut], rs[1].Hash); err != nil {
		t.Fatal(err)
	}
	fresh := forgeIndex(t, s, b, func(e map[string]json.RawMessage) {
		e["last"], _ = json.Marshal(rs[1])
		e["last_ok"], _ = json.Marshal(rs[0])
		e["ledger"], _ = json.Marshal(statID(s.LedgerPath("n")))
		e["head"], _ = json.Marshal(statID(s.HeadPath("n")))
	})
	if err := fresh.Extend(nil); err != nil {
		t.Fatal(err)
	}
	wantStanding(t, fresh)
}

// TestIndexForgedWithALedgerCutInASignedStore: in a signed store, the
// ledger's last receipt cut, its head rewritten to match without the key
// and the entry edited to match both (checksum recomputed, identities of
// now), is not believed: the head is not signed by the store's key, so
// the drain checks the ledger from it, and refuses it naming head.json.
func TestIndexForgedWithALedgerCutInASignedStore(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second as the store's signer
		if err := s.Extend(key); err != nil {
			t.Fatal(err)
		}
	}
	prev := ""
	var rs []*receipt.Receipt
	for i := 0; i < 3; i++ {
		truth, _ := canon.Decode([]byte(fmt.Sprintf(`{"f": %d}`, i)))
		v, _ := s.PutVersion("n", truth)
		r := &receipt.Receipt{Node: "n", Drain: i + 1, Seq: 1, Status: receipt.Rendered, Version: v, Prev: prev}
		if err := r.Seal(key); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Standing("n"); err != nil {
			t.Fatal(err)
		}
		if err := s.Append("n", r); err != nil {
			t.Fatal(err)
		}
		prev, rs = r.Hash, append(rs, r)
	}
	if err := s.SaveIndex(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := os.ReadFile(s.LedgerPath("n"))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(bytes.TrimSuffix(ledger, []byte("\n")), '\n') + 1
	if err := os.WriteFile(s.LedgerPath("n"), ledger[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	s.sign = nil // the forger has no key
	if err := s.writeHead("n", ledger[:cut], rs[1].Hash); err != nil {
		t.Fatal(err)
	}
	fresh := forgeIndex(t, s, b, func(e map[string]json.RawMessage) {
		e["last"], _ = json.Marshal(rs[1])
		delete(e, "last_ok")
		e["ledger"], _ = json.Marshal(statID(s.LedgerPath("n")))
		e["head"], _ = json.Marshal(statID(s.HeadPath("n")))
	})
	var damage *DamageError
	if err := fresh.Extend(key); !errors.As(err, &damage) || damage.Problems[0].File != fresh.HeadPath("n") {
		t.Fatalf("a drain of a signed store whose ledger was cut, its head rewritten without the key and its index entry edited to match: %v; want it refused naming head.json", err)
	}
}
