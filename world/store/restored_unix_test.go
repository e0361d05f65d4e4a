//go:build unix

package store

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// indexedDrain is drain, with the drain index read before and saved
// after, as a drain keeps it.
func indexedDrain(t *testing.T, s *Store, n int) {
	t.Helper()
	for _, node := range nodes {
		if _, err := s.Standing(node); err != nil {
			t.Fatal(err)
		}
	}
	if err := drain(t, s, nil, n); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveIndex(); err != nil {
		t.Fatal(err)
	}
}

// An older copy of one node's directory put back (ledger, head and
// versions consistent with each other) checks by itself; the drain index,
// written after the commits it records, names a later receipt than its
// ledger holds, and verify says so, naming the ledger and the repair.
// repair --accept takes it as it is, and verify then passes.
func TestOlderNodeDirectoryPutBackIsReported(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	indexedDrain(t, s, 1)
	indexedDrain(t, s, 2)
	old := t.TempDir() + "/alpha"
	if out, err := exec.Command("cp", "-a", s.nodeDir("alpha"), old).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	indexedDrain(t, s, 3)
	os.RemoveAll(s.nodeDir("alpha"))
	if out, err := exec.Command("cp", "-a", old, s.nodeDir("alpha")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	s2, _ := Open(dir)
	ps, err := s2.Verify(nil, nil)
	if err != nil || len(ps) != 1 || ps[0].File != s2.LedgerPath("alpha") || !strings.Contains(ps[0].Msg, "older copy") || !strings.Contains(ps[0].Msg, "--accept alpha") {
		t.Fatalf("verify of an older alpha put back: %v %v, want one problem naming %s", ps, err, s2.LedgerPath("alpha"))
	}
	s3, _ := Open(dir)
	if _, err := s3.RepairAll(map[string]bool{"alpha": true}, nil); err != nil {
		t.Fatal(err)
	}
	s4, _ := Open(dir)
	if ps, err := s4.Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Errorf("verify after repair --accept alpha: %v %v", ps, err)
	}
}

// putBackStore is a store drained three times whose node alpha's
// directory was then replaced by its copy from after the second drain.
func putBackStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, _ := Open(dir)
	indexedDrain(t, s, 1)
	indexedDrain(t, s, 2)
	old := t.TempDir() + "/alpha"
	if out, err := exec.Command("cp", "-a", s.nodeDir("alpha"), old).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	indexedDrain(t, s, 3)
	os.RemoveAll(s.nodeDir("alpha"))
	if out, err := exec.Command("cp", "-a", old, s.nodeDir("alpha")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	return dir
}

// The check before a drain refuses an older copy of a node's directory
// put back, as verify reports it: before, the drain went on from the old
// truth with exit 0. repair --accept takes it, and the drain then goes on.
func TestOlderNodeDirectoryPutBackIsRefusedByTheDrain(t *testing.T) {
	dir := putBackStore(t)
	s, _ := Open(dir)
	err := s.Extend(nil)
	var de *DamageError
	if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].File != s.LedgerPath("alpha") ||
		!strings.Contains(de.Problems[0].Msg, "ends at drain 2") || !strings.Contains(de.Problems[0].Msg, "of drain 3") || !strings.Contains(de.Problems[0].Msg, "--accept alpha") {
		t.Fatalf("drain of a store with an older alpha put back: %v, want it refused naming %s", err, s.LedgerPath("alpha"))
	}
	// refused again by the next process: nothing was indexed anew
	if err := mustOpen(t, dir).Extend(nil); !errors.As(err, &de) {
		t.Fatalf("second drain: %v, want refused", err)
	}
	if _, err := mustOpen(t, dir).RepairAll(map[string]bool{"alpha": true}, nil); err != nil {
		t.Fatal(err)
	}
	if err := mustOpen(t, dir).Extend(nil); err != nil {
		t.Errorf("drain after repair --accept alpha: %v", err)
	}
}

// A ledger ahead of its index entry (a kill after the commit, before the
// index line; or the receipts after the head, before it) is no put back:
// the drain goes on.
func TestLedgerAheadOfIndexIsNotRefused(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	indexedDrain(t, s, 1)
	// drain 2 commits, and its index line is never written
	if err := drain(t, s, nil, 2); err != nil {
		t.Fatal(err)
	}
	if err := mustOpen(t, dir).Extend(nil); err != nil {
		t.Fatalf("drain after a kill before the index line: %v", err)
	}
}

func mustOpen(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
