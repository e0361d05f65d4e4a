//go:build unix

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

// The staleness check of a run bound as an input reads the run's spec
// file and its kept source by the paths its journal names: a named pipe
// at either is refused (said in a warning), never opened in a way that
// waits for a writer.
func TestRunInputStaleCheckNeverWaitsOnAPipe(t *testing.T) {
	base, dir := runInputDirs(t)
	journaled(t, base, dir, "r1", finished("done", nil))
	file := filepath.Join(dir, "tiny.prose.md")
	// The kept source a pipe, the spec changed: stale, said at once.
	kept, _ := filepath.Glob(filepath.Join(base, "r1", journal.SourcesDir, "*.prose.md"))
	if len(kept) != 1 {
		t.Fatalf("kept sources %v", kept)
	}
	os.Remove(kept[0])
	if err := syscall.Mkfifo(kept[0], 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte(strings.Replace(runInputSpec, "a value", "another value", 1)), 0o644)
	if _, w, err := run.ResolveRunInput(base, dir, "r1"); err != nil || len(w) != 1 || !strings.Contains(w[0], "is stale") {
		t.Errorf("kept source a pipe: %q %v, want one warning that the run is stale", w, err)
	}
	// The spec a pipe: it cannot be read, said so.
	os.Remove(file)
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, w, err := run.ResolveRunInput(base, dir, "r1"); err != nil || len(w) != 1 || !strings.Contains(w[0], "cannot be read now") {
		t.Errorf("spec a pipe: %q %v, want one warning that it cannot be read", w, err)
	}
}
