//go:build unix

package store

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// readerErrors are the errors of every reader that shows node's receipts
// or truth, each on a Store opened anew (as prose world show, prose
// receipts and serve's HTTP API open it), by name.
func readerErrors(t *testing.T, dir, node string) map[string]error {
	t.Helper()
	out := map[string]error{}
	_, out["Receipts(all)"] = mustOpen(t, dir).Receipts("")
	_, out["Receipts(node)"] = mustOpen(t, dir).Receipts(node)
	_, out["Show"] = mustOpen(t, dir).Show(node, "", "")
	_, out["CheckedLedger"] = mustOpen(t, dir).CheckedLedger(node)
	_, out["CheckedLast"] = mustOpen(t, dir).CheckedLast(node)
	_, _, out["CheckedTruth"] = mustOpen(t, dir).CheckedTruth(node)
	return out
}

// wantRefused fails unless each error is a *DamageError naming the
// node's ledger with each of want.
func wantRefused(t *testing.T, errs map[string]error, ledger string, want ...string) {
	t.Helper()
	for name, err := range errs {
		var de *DamageError
		if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].File != ledger {
			t.Errorf("%s: %v, want a refusal naming %s", name, err, ledger)
			continue
		}
		for _, w := range want {
			if !strings.Contains(de.Problems[0].Msg, w) {
				t.Errorf("%s: %v, want it to say %q", name, err, w)
			}
		}
	}
}

// An older copy of a node's directory put back is refused by every
// reader, as the drain refuses it: before, prose world show, prose
// receipts and serve's HTTP API showed its old truth and receipts as the
// node's, since they compared its ledger with its head alone. After
// repair --accept, they show it.
func TestReadersRefuseANodeDirectoryPutBack(t *testing.T) {
	dir := putBackStore(t)
	ledger := mustOpen(t, dir).LedgerPath("alpha")
	wantRefused(t, readerErrors(t, dir, "alpha"), ledger, "ends at drain 2", "of drain 3", "older copy", "--accept alpha")
	// beta is sound, and shown
	if _, err := mustOpen(t, dir).Show("beta", "", ""); err != nil {
		t.Errorf("Show of beta, sound: %v", err)
	}
	if _, err := mustOpen(t, dir).RepairAll(map[string]bool{"alpha": true}, nil); err != nil {
		t.Fatal(err)
	}
	for name, err := range readerErrors(t, dir, "alpha") {
		if err != nil {
			t.Errorf("%s after repair --accept alpha: %v", name, err)
		}
	}
}

// A reader that lives long (serve's HTTP API, the MCP tools) and read
// the index before the directory was put back refuses it too: what it
// keeps of the index is read again when the file moved, and compared
// whenever a ledger is.
func TestReaderOfLongLifeSeesAPutBack(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir)
	indexedDrain(t, w, 1)
	r := mustOpen(t, dir)
	if _, err := r.CheckedLast("alpha"); err != nil {
		t.Fatal(err)
	}
	indexedDrain(t, w, 2)
	old := t.TempDir() + "/alpha"
	if out, err := exec.Command("cp", "-a", w.nodeDir("alpha"), old).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	indexedDrain(t, w, 3)
	if last, err := r.CheckedLast("alpha"); err != nil || last.Drain != 3 {
		t.Fatalf("CheckedLast after drain 3: %v %v", last, err)
	}
	os.RemoveAll(w.nodeDir("alpha"))
	if out, err := exec.Command("cp", "-a", old, w.nodeDir("alpha")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if last, err := r.CheckedLast("alpha"); err == nil {
		t.Fatalf("CheckedLast of alpha put back, by a reader that read the index before: %v, no error", last)
	}
	if _, _, err := r.CheckedTruth("alpha"); err == nil {
		t.Fatal("CheckedTruth of alpha put back, by a reader that read the index before: no error")
	}
}

// A node directory removed whole, which the index records receipts of, is
// refused by every reader, naming the ledger it had: before, prose
// receipts listed the other nodes' receipts as if the node had never
// been (exit 0), and the readers of the node said it had published
// nothing.
func TestReadersRefuseALostNode(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	indexedDrain(t, s, 1)
	indexedDrain(t, s, 2)
	if err := os.RemoveAll(s.nodeDir("alpha")); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, readerErrors(t, dir, "alpha"), s.LedgerPath("alpha"), "drain 2", "directory is gone", "its history is lost", "--accept alpha")
	// a directory left without any of its files is lost the same way
	if err := os.Mkdir(s.nodeDir("alpha"), 0o700); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, readerErrors(t, dir, "alpha"), s.LedgerPath("alpha"), "drain 2", "directory is gone")
	if err := os.Remove(s.nodeDir("alpha")); err != nil {
		t.Fatal(err)
	}

	// The drain refuses it too, rather than render the node anew and
	// erase the last trace of its history (the index entry).
	err := mustOpen(t, dir).Extend(nil)
	var de *DamageError
	if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].File != s.LedgerPath("alpha") || !strings.Contains(de.Problems[0].Msg, "directory is gone") {
		t.Fatalf("drain of a store whose alpha was removed: %v, want it refused naming %s", err, s.LedgerPath("alpha"))
	}
	if err := mustOpen(t, dir).Extend(nil); !errors.As(err, &de) {
		t.Fatalf("second drain: %v, want refused", err)
	}
	did, err := mustOpen(t, dir).RepairAll(map[string]bool{"alpha": true}, nil)
	if err != nil || len(did) != 1 || !strings.Contains(did[0], "alpha: its directory is gone") || !strings.Contains(did[0], "drain 2") {
		t.Fatalf("repair --accept alpha: %q %v, want one line saying the loss is taken", did, err)
	}
	if ps, err := mustOpen(t, dir).Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Errorf("verify after repair --accept alpha: %v %v", ps, err)
	}
	if _, err := mustOpen(t, dir).Receipts(""); err != nil {
		t.Errorf("Receipts after repair --accept alpha: %v", err)
	}
	s = mustOpen(t, dir)
	if err := s.Extend(nil); err != nil {
		t.Fatalf("drain after repair --accept alpha: %v", err)
	}
	// rendered anew
	indexedDrain(t, s, 3)
	if rs, err := mustOpen(t, dir).Receipts("alpha"); err != nil || len(rs) != 1 || rs[0].Prev != "" {
		t.Errorf("alpha after the drain: %v %v, want one receipt, its first", rs, err)
	}
}

// A serve process (the lock held) that reads its own store: the index it
// has not saved yet is behind the ledgers, which is no damage.
func TestReadersBesideAnUnsavedIndex(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	indexedDrain(t, s, 1)
	if err := drain(t, s, nil, 2); err != nil { // no index line
		t.Fatal(err)
	}
	for name, err := range readerErrors(t, dir, "alpha") {
		if err != nil {
			t.Errorf("%s with the index behind the ledger: %v", name, err)
		}
	}
}
