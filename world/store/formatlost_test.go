package store

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A signed store whose FORMAT file was deleted is not opened as a new,
// unsigned one: before, Open wrote a FORMAT without the signer, and an
// unsigned drain extended the signed ledgers with exit 0. Open, and Find
// for the readers, refuse it, naming the directory, a file it holds and
// the FORMAT to restore.
func TestDeletedFormatIsNotWrittenAnew(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	dir := filepath.Join(t.TempDir(), "project", ".prose", "world")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := drain(t, s, key, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveIndex(); err != nil {
		t.Fatal(err)
	}
	format := filepath.Join(dir, "FORMAT")
	for _, also := range []string{"", "index.jsonl"} {
		if also != "" {
			os.Remove(filepath.Join(dir, also)) // the node directories alone
		}
		os.Remove(format)
		_, err := Open(dir)
		if err == nil || !strings.Contains(err.Error(), format) || !strings.Contains(err.Error(), "no FORMAT file") {
			t.Errorf("Open without FORMAT (%s removed too): %v, want refused naming %s", also, err, format)
		}
		if _, err := os.Stat(format); err == nil {
			t.Errorf("Open wrote a new FORMAT (%s removed too)", also)
		}
		if _, err := Find("", filepath.Dir(filepath.Dir(dir))); err == nil || !strings.Contains(err.Error(), format) {
			t.Errorf("Find without FORMAT: %v, want refused naming %s", err, format)
		}
		if _, err := Find(dir, ""); err == nil || !strings.Contains(err.Error(), format) {
			t.Errorf("Find --state without FORMAT: %v, want refused naming %s", err, format)
		}
	}
	// A directory holding no store's files is a new store, as before.
	fresh := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(filepath.Join(fresh, ".serve"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(fresh); err != nil {
		t.Errorf("Open of a directory with only its lock's: %v", err)
	}
}
