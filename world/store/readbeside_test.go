package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/world/canon"
)

// A reader beside a writer (another Store on the directory, as prose ui
// or prose receipts beside prose run) never finds a commit half-done to
// be damage: the checked readers read the head before the ledger, and a
// commit writes the ledger before its head (and a node's first head
// before its first ledger). Each node's first commits are where a
// reader could find a ledger and no head.
func TestCheckedReadersBesideAWriter(t *testing.T) {
	w, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Extend(nil); err != nil {
		t.Fatal(err)
	}
	r, err := Open(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	const nodes, commits = 16, 3
	var done atomic.Bool
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for !done.Load() {
			for i := 0; i < nodes; i++ {
				node := fmt.Sprintf("n%d", i)
				if _, err := r.CheckedLedger(node); err != nil {
					errs <- err
					return
				}
				var damage *DamageError
				if _, err := r.Show(node, "", ""); errors.As(err, &damage) {
					errs <- err // not a node without a truth yet: damage
					return
				}
			}
		}
	}()
	for c := 0; c < commits; c++ {
		for i := 0; i < nodes; i++ {
			node := fmt.Sprintf("n%d", i)
			last, err := w.Last(node)
			if err != nil {
				t.Fatal(err)
			}
			prev := ""
			if last != nil {
				prev = last.Hash
			}
			truth, _ := canon.Decode([]byte(fmt.Sprintf(`{"f": %d}`, c)))
			commit(t, w, node, truth, prev)
		}
	}
	done.Store(true)
	if err := <-errs; err != nil {
		t.Fatalf("a reader beside the writer: %v", err)
	}
}
