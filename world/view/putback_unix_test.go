//go:build unix

package view_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The world pages compare a node's directory with the drain index, as
// prose world show and the drain do: an older copy of it put back, or the
// directory removed while the index records receipts of it, marks the
// node failing, its ledger named with the fix. Before, the page showed
// the old truth and receipts as the node's, and a removed node waiting.
func TestNodeDirectoryAgainstTheIndexIsMarked(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	sum := filepath.Join(f.state, "sum")
	old := filepath.Join(t.TempDir(), "sum")
	if out, err := exec.Command("cp", "-a", sum, old).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	f.mustDrain(event(2, 1))
	if w := load(t, f); w.Status("sum").Failing {
		t.Fatal("sum, sound, is failing")
	}
	os.RemoveAll(sum)
	if out, err := exec.Command("cp", "-a", old, sum).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	w := load(t, f)
	if !w.Status("sum").Failing {
		t.Error("sum, an older copy put back, is not failing")
	}
	p, err := w.Node("sum")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.LedgerProblems; len(got) != 1 || !strings.Contains(got[0].Msg, "older copy") || !strings.Contains(got[0].Msg, "--accept sum") {
		t.Errorf("sum's page, an older copy put back: ledger problems %v", got)
	}

	os.RemoveAll(sum)
	w = load(t, f)
	if !w.Status("sum").Failing {
		t.Error("sum, its directory removed, is not failing")
	}
	if p, err = w.Node("sum"); err != nil {
		t.Fatal(err)
	}
	if got := p.LedgerProblems; len(got) != 1 || !strings.Contains(got[0].Msg, "directory is gone") {
		t.Errorf("sum's page, its directory removed: ledger problems %v", got)
	}
}
