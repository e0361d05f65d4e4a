//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe in place of a ledger is refused, named, at once, by
// verify, world show and the next drain: none of them waits on it.
func TestReceiptsRefuseAPipe(t *testing.T) {
	project, state, slot := digestProject(t)
	if code, out := drainDigest(t, project, state, slot, "one"); code != 0 {
		t.Fatalf("drain: %d\n%s", code, out)
	}
	ledger := filepath.Join(state, "digest", "receipts.jsonl")
	os.Remove(ledger)
	if err := syscall.Mkfifo(ledger, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	want := ledger + ": a named pipe, not a regular file"
	if code, _, errw := runMain(t, "receipts", "verify", "--state", state); code != 1 || !strings.Contains(errw, want) {
		t.Errorf("verify: %d\n%s", code, errw)
	}
	if code, _, errw := runMain(t, "world", "show", "digest", "--state", state); code != 1 || !strings.Contains(errw, want) {
		t.Errorf("world show: %d\n%s", code, errw)
	}
	if code, out := drainDigest(t, project, state, slot, "two"); code != 1 || !strings.Contains(out, want) {
		t.Errorf("drain: %d\n%s", code, out)
	}
}
