package wholefile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write replaces a file whole with the mode asked, leaves no temporary
// file, and on a failure leaves the old content as it was.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new content" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if err := Write(p, []byte("shared"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A rename onto a directory fails: the file there stays, no
	// temporary file is left behind.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(sub, []byte("lost"), 0o600); err == nil {
		t.Error("writing over a directory: no error")
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("writing into a missing directory: no error")
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "state.json" || names[1] != "sub" {
		t.Errorf("directory holds %q, want only state.json and sub", names)
	}
}
