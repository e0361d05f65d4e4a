package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Only one process appends to a journal: a resume of a run that is still
// going, or a second resume of the same run, is refused with a message
// saying so, and runs rm keeps a running run.
func TestJournalLockRefusesASecondWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prose binary")
	}
	bin := buildProse(t, t.TempDir())
	w := newJournalWorld(t, bin, "", "/2")
	args := []string{"run", "fanout.prose.md", "--quiet", "--slot", "worker=exec:./worker.sh"}
	run, _, _ := w.command(args...)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	id := w.waitBlocked(t)

	assertRefused := func(what string) {
		t.Helper()
		_, stderr, code := w.prose("resume", id)
		if code != 1 || !strings.Contains(stderr, "in use by another prose process") {
			t.Errorf("resume while %s: exit %d\n%s", what, code, stderr)
		}
		_, stderr, code = w.prose("runs", "rm", id)
		if code != 1 || !strings.Contains(stderr, "still running") {
			t.Errorf("runs rm while %s: exit %d\n%s", what, code, stderr)
		}
		_, stderr, code = w.prose("runs", "rm", "--all")
		if code != 0 || !strings.Contains(stderr, "kept "+id+" (running)") {
			t.Errorf("runs rm --all while %s: exit %d\n%s", what, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(w.dir, ".prose", "runs", id)); err != nil {
			t.Fatalf("the run directory is gone while %s: %v", what, err)
		}
	}
	assertRefused("the run is going")
	run.Process.Kill()
	run.Wait()

	// The killed run, resumed twice at once: the second is refused.
	os.Remove(filepath.Join(w.dir, "log", "worker.log"))
	first, _, _ := w.command("resume", id)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	w.waitBlocked(t)
	assertRefused("another resume is going")
	w.touch("release")
	if err := first.Wait(); err != nil {
		t.Fatalf("the first resume: %v", err)
	}
	if _, stderr, code := w.prose("runs", "rm", id); code != 0 {
		t.Errorf("runs rm after the run ended: exit %d\n%s", code, stderr)
	}
}

// waitBlocked waits until a worker blocks (the run is in the middle of a
// call) and returns the run id.
func (w *journalWorld) waitBlocked(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(w.dir, "log", "worker.log"))
		if id := w.runID(); id != "" && strings.Contains(string(b), "block ") {
			return id
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no worker blocked")
	return ""
}
