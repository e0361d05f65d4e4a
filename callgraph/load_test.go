package callgraph

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusedFileHasNoEcho: a file the loader refuses (here: empty, and
// over the size limit) is reported by that error alone, without the
// "no Delegation block" it implies.
func TestRefusedFileHasNoEcho(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"empty.prose.md": "",
		"big.prose.md":   strings.Repeat("x", 5<<20),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := LoadChecked(path, nil, nil)
		var se *SpecError
		if !errors.As(err, &se) {
			t.Fatalf("%s: err = %v, want a *SpecError", name, err)
		}
		if len(se.Diags) != 1 || strings.Contains(se.Error(), "no Delegation") {
			t.Errorf("%s: %v, want the loader's error alone", name, se.Diags)
		}
	}
}
