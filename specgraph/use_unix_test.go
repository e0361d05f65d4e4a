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

// The graph resolves a use alias to the file or library spec the use
// names, through its own reads, and loads it as a callee.
func TestGraphUses(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"app/main.prose.md":   fn("main", "", "use \"../lib/helper\" as h\nuse \"std/roles/critic\" as judge\nlet v = call h\nreturn call judge\n  output: v\n  criteria: \"c\""),
		"lib/helper.prose.md": fn("helper", "", "return 1"),
	})
	t.Chdir(dir)
	g := specgraph.New(specgraph.Options{})
	sp, diags, err := g.Load("app/main.prose.md")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	var got []string
	for _, c := range g.Calls(sp) {
		if c.Callee == nil || c.Callee.Use == nil {
			t.Fatalf("call %s: %+v, not through its use", c.Name, c.Callee)
		}
		got = append(got, c.Name+"="+c.Callee.Path)
		if callee, _, err := g.Callee(c.Callee); err != nil || callee == nil {
			t.Errorf("call %s: the callee does not load: %v", c.Name, err)
		}
	}
	if want := "h=lib/helper.prose.md judge=std/roles/critic.prose.md"; strings.Join(got, " ") != want {
		t.Errorf("calls %v, want %s", got, want)
	}
}

// A used file that is a named pipe is resolved by a stat, never opened
// in a way that waits: its load is refused, naming it.
func TestUsedPipeIsRefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.prose.md": fn("main", "", "use \"./pipe\" as p\nreturn call p")})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.prose.md"), 0o600); err != nil {
		t.Skip(err)
	}
	t.Chdir(dir)
	done := make(chan error, 1)
	go func() {
		g := specgraph.New(specgraph.Options{})
		sp, _, err := g.Load("main.prose.md")
		if err != nil {
			done <- err
			return
		}
		calls := g.Calls(sp)
		if len(calls) != 1 || calls[0].Callee == nil || calls[0].Callee.Path != "pipe.prose.md" {
			done <- fmt.Errorf("calls %+v: the pipe's path is not the callee", calls)
			return
		}
		_, _, err = g.Callee(calls[0].Callee)
		if err == nil {
			err = errors.New("the pipe was loaded")
		} else if strings.Contains(err.Error(), "pipe.prose.md") && strings.Contains(err.Error(), "not a regular file") {
			err = nil
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a guard only
		if w, err := os.OpenFile(filepath.Join(dir, "pipe.prose.md"), os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("the load of the used file waits on the pipe")
	}
}
