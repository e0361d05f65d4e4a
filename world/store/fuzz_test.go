package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// FuzzLedger: any bytes in place of a node's ledger and head record are
// read without a panic by the check before a drain, verify and world
// show; a ledger verify passes is a chain that checks, and is one the
// drain's check passes too; and a drain's check never passes a ledger or
// head record that verify names (a drain would write a true head over
// the damage).
func FuzzLedger(f *testing.F) {
	seed, err := Open(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	prev := ""
	for i := 0; i < 3; i++ {
		truth, _ := canon.Decode([]byte(`{"f": ` + string(rune('0'+i)) + `}`))
		v, _ := seed.PutVersion("n", truth)
		r := &receipt.Receipt{Node: "n", Drain: i + 1, Seq: 1, Status: receipt.Rendered, Version: v, Prev: prev}
		r.Seal(nil)
		if err := seed.Append("n", r); err != nil {
			f.Fatal(err)
		}
		prev = r.Hash
	}
	ledger, _ := os.ReadFile(seed.LedgerPath("n"))
	head, _ := os.ReadFile(seed.HeadPath("n"))
	f.Add(ledger, head)
	f.Add(ledger[:len(ledger)/2], head)
	f.Add(append(ledger, ledger...), head)
	f.Add([]byte{}, head)
	f.Add(ledger, []byte(`{"receipts":-1}`))
	f.Add(ledger, bytes.Replace(head, []byte(`"receipts":3`), []byte(`"receipts":2`), 1))
	f.Add([]byte("{\"format\":\"9.0\"}\n"), []byte{})
	f.Fuzz(func(t *testing.T, ledger, head []byte) {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(s.Dir, "n")
		os.MkdirAll(dir, 0o700)
		os.WriteFile(filepath.Join(dir, "receipts.jsonl"), ledger, 0o600)
		if len(head) > 0 {
			os.WriteFile(filepath.Join(dir, "head.json"), head, 0o600)
		}
		extendErr := s.Extend(nil)
		s.Show("n", "", "")
		ps, err := s.Verify(nil, nil)
		if extendErr == nil && err == nil {
			for _, p := range ps {
				if base := filepath.Base(p.File); base == "receipts.jsonl" || base == "head.json" {
					t.Fatalf("the drain's check passed what verify names: %s", p)
				}
			}
		}
		if err != nil || len(ps) > 0 {
			return
		}
		rs, err := s.Ledger("n")
		if err != nil {
			t.Fatalf("verify passed a ledger Ledger refuses: %v", err)
		}
		if i, err := receipt.Chain(rs, nil); err != nil {
			t.Fatalf("verify passed a ledger whose receipt %d does not check: %v", i+1, err)
		}
		if extendErr != nil {
			t.Fatalf("verify passed what the drain's check refused: %v", extendErr)
		}
	})
}
