//go:build unix

package specgraph_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	refusesCalleePipe(t, dir, "main.prose.md", "pipe.prose.md")
}
