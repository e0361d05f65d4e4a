package handoff

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFind: a program on PATH is found; one nowhere is ErrNotFound,
// naming the program.
func TestFind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the program written here is a shell script")
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := Find("prose-nowhere"); !errors.Is(err, ErrNotFound) || err.Error() != "prose-nowhere: program not found" {
		t.Errorf("err = %v, want ErrNotFound naming the program", err)
	}
	p := filepath.Join(dir, "prose-somewhere")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Find("prose-somewhere"); err != nil || got != p {
		t.Errorf("Find = %q, %v; want %q", got, err, p)
	}
}
