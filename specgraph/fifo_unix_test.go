//go:build unix

package specgraph_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/specgraph"
)

// A sibling that is a named pipe is not opened by call resolution (a
// read would block until something writes to it); the call resolves to
// the regular file beside it.
func TestSiblingPipeIsNotOpened(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.prose.md":  fn("main", "", "return call helper"),
		"zhelp.prose.md": fn("helper", "", "return 1"),
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.prose.md"), 0o600); err != nil {
		t.Skip(err)
	}
	g := specgraph.New(specgraph.Options{FS: os.DirFS(dir)})
	sp, _, err := g.Load("main.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	calls := g.Calls(sp)
	if len(calls) != 1 || calls[0].Callee == nil || calls[0].Callee.Path != "zhelp.prose.md" {
		t.Fatalf("calls %+v, want helper in zhelp.prose.md", calls)
	}
	if _, err := g.Open("pipe.prose.md"); err == nil {
		t.Error("the pipe was opened")
	}
}

// A named pipe where a callee's spec file is expected (a std/ path the
// project holds on disk) is refused, naming it, without being opened in
// a way that waits: before, the load blocked for good.
func TestCalleePipeIsRefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.prose.md": fn("main", "", "return call std/evil")})
	if err := os.MkdirAll(filepath.Join(dir, "std"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "std", "evil.prose.md"), 0o600); err != nil {
		t.Skip(err)
	}
	refusesCalleePipe(t, dir, "main.prose.md", "std/evil.prose.md")
}

// refusesCalleePipe loads main from dir (the working directory) and
// the callee of its one call, which must be the named pipe at pipe
// (relative to dir): the load is refused, naming it, without waiting on
// it.
func refusesCalleePipe(t *testing.T, dir, main, pipe string) {
	t.Helper()
	t.Chdir(dir)
	done := make(chan error, 1)
	go func() {
		g := specgraph.New(specgraph.Options{})
		sp, _, err := g.Load(main)
		if err != nil {
			done <- err
			return
		}
		calls := g.Calls(sp)
		if len(calls) != 1 || calls[0].Callee == nil || calls[0].Callee.Path != pipe {
			done <- fmt.Errorf("calls %+v: the pipe's path is not the callee", calls)
			return
		}
		_, _, err = g.Callee(calls[0].Callee)
		if err == nil {
			err = errors.New("the pipe was loaded")
		} else if strings.Contains(err.Error(), pipe) && strings.Contains(err.Error(), "not a regular file") {
			err = nil
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a guard only: the old code never returns
		// unblock the open so that the test's goroutine ends
		if w, err := os.OpenFile(filepath.Join(dir, pipe), os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("the load of the callee waits on the pipe")
	}
}
