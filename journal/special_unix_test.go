//go:build unix

package journal

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A journal.jsonl that is a named pipe or a device is no journal: listing
// reports it unreadable instead of blocking on the pipe (Ctrl-C cannot
// stop that) or reading /dev/zero without end, and runs rm removes the
// run, not the device.
func TestSpecialFilesAreNoJournals(t *testing.T) {
	base := t.TempDir()
	fifo := filepath.Join(base, "20260101T000000-fifo01")
	dev := filepath.Join(base, "20260101T000000-zero01")
	os.MkdirAll(fifo, 0o755)
	os.MkdirAll(dev, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, FileName), 0o644); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dev, FileName)); err != nil {
		t.Skip(err)
	}
	runs, err := List(base)
	if err != nil || len(runs) != 2 {
		t.Fatalf("list: %v, %d runs", err, len(runs))
	}
	for _, s := range runs {
		if s.Status != StatusUnreadable || !strings.Contains(s.Err, "not a regular file") {
			t.Errorf("%s: %s %q", s.ID, s.Status, s.Err)
		}
	}
	if _, err := Replay(base, "20260101T000000-fifo01", Options{}); err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("replay of a pipe: %v", err)
	}
	for _, id := range []string{"20260101T000000-fifo01", "20260101T000000-zero01"} {
		if _, err := Remove(base, id); err != nil {
			t.Errorf("remove %s: %v", id, err)
		}
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Errorf("/dev/zero: %v", err)
	}
}
