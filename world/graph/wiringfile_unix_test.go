//go:build unix

package graph

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A wiring file that is a directory or a named pipe is an error at the
// file, from prose lint (graph.Lint) as from a load, and never waited
// on: the pipe's open would hold prose run, serve and lint forever.
func TestWiringFileThatIsNotAFile(t *testing.T) {
	for _, kind := range []string{"directory", "named pipe"} {
		t.Run(kind, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				"feed.prose.md": node("feed", "gateway", "", "- `counts`: tallies"),
				"sum.prose.md":  node("sum", "responsibility", "- `counts`: from `feed`", "- `total`: n"),
			})
			p := filepath.Join(dir, WiringFile)
			if kind == "directory" {
				os.Mkdir(p, 0o700)
			} else if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			ds, err := Lint(dir)
			if err != nil {
				t.Fatalf("lint: %v, want a diagnostic at the file", err)
			}
			want := p + ":1:1: error: " + WiringFile + " cannot be read"
			if !strings.Contains(ds.String(), want) {
				t.Errorf("lint: %v, want %q", ds, want)
			}
			if _, diags, err := Load(dir); err != nil || !strings.Contains(diags.String(), want) {
				t.Errorf("load: %v %v, want %q", diags, err, want)
			}
		})
	}
}
