package store

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// indexedStore is a store of node "n" with three receipts (the second
// failed) and its index written, and the index's bytes.
func indexedStore(t testing.TB) (*Store, []byte) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Extend(nil); err != nil {
		t.Fatal(err)
	}
	prev := ""
	for i, status := range []receipt.Status{receipt.Rendered, receipt.Failed, receipt.Rendered} {
		truth, _ := canon.Decode([]byte(`{"f": ` + string(rune('0'+i)) + `}`))
		v, _ := s.PutVersion("n", truth)
		r := &receipt.Receipt{Node: "n", Drain: i + 1, Seq: 1, Status: status, Version: v, Prev: prev}
		r.Seal(nil)
		if _, err := s.Standing("n"); err != nil {
			t.Fatal(err)
		}
		if err := s.Append("n", r); err != nil {
			t.Fatal(err)
		}
		prev = r.Hash
	}
	if err := s.SaveIndex(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	return s, b
}

// wantStanding checks that node n's standing is its ledger's.
func wantStanding(t *testing.T, s *Store) {
	t.Helper()
	rs, err := s.Ledger("n")
	if err != nil {
		t.Fatal(err)
	}
	sd, err := s.Standing("n")
	if err != nil {
		t.Fatal(err)
	}
	var lastOK *receipt.Receipt
	for _, r := range rs {
		if r.Status != receipt.Failed {
			lastOK = r
		}
	}
	last, ok, err := sd.Receipts()
	if err != nil {
		t.Fatal(err)
	}
	sameOK := ok == lastOK || ok != nil && lastOK != nil && ok.Hash == lastOK.Hash && ok.Version == lastOK.Version
	if last == nil || last.Hash != rs[len(rs)-1].Hash || last.Version != rs[len(rs)-1].Version || !sameOK || sd.Hash != last.Hash || sd.Version != last.Version || sd.Drain != last.Drain || !sd.Exists {
		t.Fatalf("standing %+v, want the ledger's last %s and last non-failed %v", sd, rs[len(rs)-1].Hash, lastOK)
	}
}

// TestIndexFollowsTheLedger: an index written before a receipt was
// appended by another Store (a kill after the commit, before the index
// line) is not believed: the standing is the ledger's.
func TestIndexFollowsTheLedger(t *testing.T) {
	s, _ := indexedStore(t)
	other, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := other.Last("n")
	r := &receipt.Receipt{Node: "n", Drain: 9, Seq: 1, Status: receipt.Skipped, Version: last.Version, Prev: last.Hash}
	r.Seal(nil)
	if err := other.Append("n", r); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Extend(nil); err != nil {
		t.Fatal(err)
	}
	wantStanding(t, fresh)
}

// FuzzIndex: any bytes in place of the drain index are read without a
// panic, and the standing of a node is still its ledger's.
func FuzzIndex(f *testing.F) {
	_, b := indexedStore(f)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte("{\"node\":\"n\",\"ledger\":{\"size\":-1}}\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, index []byte) {
		s, _ := indexedStore(t)
		if err := os.WriteFile(s.IndexPath(), index, 0o600); err != nil {
			t.Fatal(err)
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

// TestIndexLineChecked: an index line changed in place, still valid JSON
// (a receipt's status edited), fails its checksum and is not believed.
func TestIndexLineChecked(t *testing.T) {
	s, b := indexedStore(t)
	edited := bytes.Replace(b, []byte(`"status":"rendered"`), []byte(`"status":"failed"`), -1)
	if bytes.Equal(edited, b) {
		t.Fatalf("the index holds no rendered receipt to edit:\n%s", b)
	}
	if err := os.WriteFile(s.IndexPath(), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Extend(nil); err != nil {
		t.Fatal(err)
	}
	wantStanding(t, fresh)
}

// TestIndexSeesALedgerEditedInPlace: a ledger whose bytes were changed
// in place behind the index's back, its size kept and its modification
// time put back, is not taken from the index by the next Store opened
// on the directory: its change time moved, and the drain's check reads
// the ledger and refuses it, naming it.
func TestIndexSeesALedgerEditedInPlace(t *testing.T) {
	s, _ := indexedStore(t)
	p := s.LedgerPath("n")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"drain":2`))
	if i < 0 {
		t.Fatalf("no second drain in the ledger:\n%s", b)
	}
	b[i+8] = '7'
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.Stat(p); now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("the edit moved size or time: %v %v", now.Size(), now.ModTime())
	}
	fresh, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	err = fresh.Extend(nil)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Extend of a store whose ledger was edited in place: %v, want a refusal naming %s", err, p)
	}
}

// TestVerifyNamesALostNode: a node directory removed whole (its ledger,
// head and versions) is a problem of verify, named by the ledger it had,
// since the drain index still records its receipts; before, verify
// passed over a directory it did not find.
func TestVerifyNamesALostNode(t *testing.T) {
	s, _ := indexedStore(t)
	if ps, err := s.Verify(nil, nil); err != nil || strings.Contains(fmt.Sprint(ps), "gone") {
		t.Fatalf("store with its node: %v %v", ps, err)
	}
	if err := os.RemoveAll(s.nodeDir("n")); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := fresh.Verify(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].File != fresh.LedgerPath("n") || !strings.Contains(ps[0].Msg, "drain 3") || !strings.Contains(ps[0].Msg, "directory is gone") {
		t.Fatalf("verify of a store whose node n was removed: %+v", ps)
	}
}
