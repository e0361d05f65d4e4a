//go:build unix

package specgraph_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

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
