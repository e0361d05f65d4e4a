//go:build unix

package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Remove holds the journal's lock while it deletes: a process that
// would take it then (a resume) is refused, not let in on a run half
// gone.
func TestRemoveHoldsTheLock(t *testing.T) {
	base := filepath.Join(t.TempDir(), "runs")
	id := "20260101T000000-held"
	os.MkdirAll(filepath.Join(base, id), 0o755)
	path := filepath.Join(base, id, FileName)
	os.WriteFile(path, []byte(`{"t":"header","v":1}`+"\n"), 0o600)
	tried := false
	_, err := remove(base, id, func() {
		tried = true
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if unlock, err := lockFile(f); err == nil {
			unlock()
			t.Error("the journal's lock was free while its run was being removed")
		}
	})
	if err != nil || !tried {
		t.Fatalf("remove: %v (hook ran: %v)", err, tried)
	}
	if _, err := os.Stat(filepath.Join(base, id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run directory still there: %v", err)
	}
}
