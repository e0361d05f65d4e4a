package store

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/proselang/prose/world/canon"
)

// Show answers the version the checked ledger's last receipt names: a
// truth.json a commit has not rewritten yet (the version before, as a
// writer beside the reader leaves it for a moment) is not shown as the
// node's truth, nor refused as edited; one edited by hand is refused,
// naming it.
func TestShowReadsTheVersionTheLedgerVouchesFor(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Extend(nil); err != nil {
		t.Fatal(err)
	}
	one, _ := canon.Decode([]byte(`{"f": 1}`))
	two, _ := canon.Decode([]byte(`{"f": 2}`))
	r1 := commit(t, s, "n", one, "")
	commit(t, s, "n", two, r1.Hash)
	// The commit of two as a reader can find it: its receipt appended,
	// its published files not yet rewritten.
	if err := os.WriteFile(s.TruthPath("n"), []byte(`{"f":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.FacetPath("n", "f"), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := s.Show("n", "", "")
	if err != nil || !reflect.DeepEqual(v, two) {
		t.Fatalf("show during a commit: %v, %v; want %v", v, err, two)
	}
	if err := os.WriteFile(s.TruthPath("n"), []byte(`{"f":7}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var damage *DamageError
	if _, err := s.Show("n", "", ""); !errors.As(err, &damage) || damage.Problems[0].File != s.TruthPath("n") {
		t.Fatalf("show of an edited truth.json: %v; want it refused, naming it", err)
	}
}
