package lint_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/proselang/prose/lint"
)

// failingFS is a MapFS whose listing of one directory fails, as an
// unreadable directory's does (a test running as root cannot make one).
type failingFS struct {
	fstest.MapFS
	bad string
}

func (f failingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == f.bad {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.ReadDir(name)
}

// TestWalkGoesOnAfterUnreadableDir: a subdirectory that cannot be listed
// is reported, and the files after it in the walk are still linted.
func TestWalkGoesOnAfterUnreadableDir(t *testing.T) {
	fsys := failingFS{bad: "b", MapFS: fstest.MapFS{
		"a/one.prose.md":   {Data: []byte(specText("one", "return { r: 1 }"))},
		"b/two.prose.md":   {Data: []byte(specText("two", "return { r: 1 }"))},
		"c/three.prose.md": {Data: []byte(specText("three", "return { r: zz }"))},
		"d/four.prose.md":  {Data: []byte(specText("four", "return { r: 1 }"))},
	}}
	res, err := lint.Paths([]string{"."}, lint.Options{Resolve: func(string) (fs.FS, string) { return fsys, "." }})
	var pe *lint.PathError
	if !errors.As(err, &pe) || len(pe.Errs) != 1 || !strings.Contains(err.Error(), "b: permission denied") {
		t.Fatalf("err = %v, want the unreadable b only", err)
	}
	if res.Files != 3 {
		t.Errorf("%d files linted, want 3 (a, c and d)", res.Files)
	}
	if !strings.Contains(res.Diags.String(), "c/three.prose.md:") {
		t.Errorf("the file after the unreadable directory was not linted:\n%s", res.Diags)
	}
}

// blockingFS blocks in Open of one file, as opening a named pipe that
// nobody writes does, and says when it got there.
type blockingFS struct {
	fstest.MapFS
	block   string
	entered chan struct{}
	release chan struct{}
}

func (f blockingFS) Open(name string) (fs.File, error) {
	if name == f.block {
		close(f.entered)
		<-f.release
	}
	return f.MapFS.Open(name)
}

// TestPathsStopsWhenCanceled: a read blocked in Open does not keep lint
// from returning once its context is canceled.
func TestPathsStopsWhenCanceled(t *testing.T) {
	fsys := blockingFS{
		MapFS:   fstest.MapFS{"p.prose.md": {Data: []byte(specText("p", "return { r: 1 }"))}},
		block:   "p.prose.md",
		entered: make(chan struct{}),
		release: make(chan struct{}),
	}
	defer close(fsys.release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := lint.PathsContext(ctx, []string{"p.prose.md"}, lint.Options{Resolve: func(a string) (fs.FS, string) { return fsys, a }})
		done <- err
	}()
	<-fsys.entered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the cancellation", err)
		}
	case <-time.After(time.Minute): // a guard against the hang, not a measure
		t.Fatal("lint kept waiting for the blocked read after the cancellation")
	}
}

// TestStdin: the path "-" lints the spec read from Options.Stdin, named
// <stdin>, and a spec name is not compared with that file name.
func TestStdin(t *testing.T) {
	src := specText("whatever", "return { r: zz }")
	res, err := lint.Paths([]string{"-"}, lint.Options{Stdin: strings.NewReader(src)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 1 {
		t.Errorf("%d files", res.Files)
	}
	out := res.Diags.String()
	if !strings.Contains(out, "<stdin>:23:") || !strings.Contains(out, "check/undefined-name") || strings.Contains(out, "name-mismatch") {
		t.Errorf("findings:\n%s", out)
	}
}

func TestSummary(t *testing.T) {
	if got := sample().Summary(); got != "1 error, 2 warnings in 2 files" {
		t.Errorf("summary %q", got)
	}
	if got := (&lint.Result{Files: 1}).Summary(); got != "0 errors, 0 warnings in 1 file" {
		t.Errorf("summary %q", got)
	}
}
