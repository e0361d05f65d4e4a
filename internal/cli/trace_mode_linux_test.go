package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A trace holds what a journal holds, and is as private: a new trace file
// is created 0600 whatever the umask lets through; an existing file keeps
// the mode its owner gave it.
func TestTraceFileIsPrivate(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "sleeper.prose.md")
	if err := os.WriteFile(spec, []byte(sleeperSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o022) // the usual umask, which left traces 0644
	defer syscall.Umask(old)
	shared := filepath.Join(dir, "shared.jsonl")
	if err := os.WriteFile(shared, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"trace.jsonl": 0o600, "shared.jsonl": 0o644} {
		trace := filepath.Join(dir, name)
		code, _, stderr := runMain(t, "run", "--no-journal", "-q", spec, "--slot", "svc=exec:echo 1", "--trace", trace)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		st, err := os.Stat(trace)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want || st.Size() == 0 {
			t.Errorf("%s: mode %v, %d bytes; want %v and the trace", name, st.Mode().Perm(), st.Size(), want)
		}
	}
}
