//go:build unix

package lint_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/lint"
)

// TestWalkSkipsNamedPipe: a named pipe called *.prose.md in a walked
// directory is skipped with a warning instead of blocking the walk (no
// one ever writes to it), and the other files are linted.
func TestWalkSkipsNamedPipe(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.prose.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.prose.md"), []byte(specText("ok", "return { r: 1 }")), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res *lint.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := lint.Paths([]string{dir}, lint.Options{})
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // a guard against the hang, not a measure
		t.Fatal("lint blocked on the named pipe")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.Files != 1 {
		t.Errorf("%d files linted, want 1", r.res.Files)
	}
	want := filepath.Join(dir, "pipe.prose.md") + ":1:1: warning: skipped: a named pipe, not a regular file [lint/not-regular]"
	if !strings.Contains(r.res.Diags.String(), want) || r.res.HasErrors() {
		t.Errorf("findings:\n%s\nwant %q", r.res.Diags, want)
	}
}
