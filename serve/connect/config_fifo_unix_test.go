//go:build unix

package connect_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/proselang/prose/serve/connect"
	"github.com/proselang/prose/world/graph"
)

// A prose.serve.yaml that is a named pipe is refused naming it, never
// opened in a way that waits (prose serve would never start).
func TestReadConfigRefusesAPipe(t *testing.T) {
	g, _, _ := graph.Load("../testdata/redeliver")
	dir := t.TempDir()
	p := filepath.Join(dir, connect.FileName)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := connect.ReadConfig(dir, g); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("got %v, want an error naming %s", err, p)
	}
}
