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

// TestCalleePipeIsAnError: a named pipe where a callee's spec is expected
// (a std/ path the project holds on disk) is an error at the call, not
// waited on (before, lint blocked on it).
func TestCalleePipeIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "std"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "std", "evil.prose.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.prose.md"), []byte("---\nname: main\nkind: function\n---\n\n### Returns\n\n- `out`: value\n\n### Execution\n\n```prose\nreturn call std/evil\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	type result struct {
		res *lint.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := lint.Paths([]string{"main.prose.md"}, lint.Options{})
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // a guard against the hang, not a measure
		if w, err := os.OpenFile(filepath.Join(dir, "std", "evil.prose.md"), os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("lint blocked on the named pipe")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.res.Diags.String(), "call std/evil reaches std/evil.prose.md, which cannot be read") || !r.res.HasErrors() {
		t.Errorf("findings:\n%s\nwant the pipe named as an error", r.res.Diags)
	}
}
