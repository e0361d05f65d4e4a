package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// runMain runs prose in-process and returns its exit code and output.
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errw)
	return code, out.String(), errw.String()
}

func TestShow(t *testing.T) {
	root := testenv.MustRoot(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.prose.md")
	if err := os.WriteFile(bad, []byte("---\nname: bad\nkind: pattern\n---\n# Bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noUTF8 := filepath.Join(dir, "bin.prose.md")
	if err := os.WriteFile(noUTF8, []byte("\xff\xfe\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		code       int
		printed    bool   // the typed spec is printed (also for an invalid spec)
		stdoutName string // the "name" of the printed JSON
		stderr     string // substring of stderr
	}{
		{"fixture", []string{"show", filepath.Join(root, "testdata/spec/ratchet.prose.md")}, 0, true, "ratchet", ""},
		{"std path", []string{"show", "std/ratchet"}, 0, true, "ratchet", ""},
		// An invalid spec: exit 2, as prose run refuses it, with its JSON.
		{"error diagnostics", []string{"show", bad}, 2, true, "bad", "bad.prose.md:3:7: error: a pattern needs a ### Slots section [spec/missing-section]"},
		{"binary file", []string{"show", noUTF8}, 2, true, "", "bin.prose.md:1:1: error: file is not valid UTF-8"},
		{"missing", []string{"show", filepath.Join(dir, "nope.prose.md")}, 2, false, "", "nope.prose.md: no such file"},
		{"directory", []string{"show", dir}, 2, false, "", dir + ": is a directory"},
		{"no argument", []string{"show"}, 2, false, "", "show needs a spec file (FILE.prose.md)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runMain(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errs)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", errs, tt.stderr)
			}
			if !tt.printed {
				if out != "" {
					t.Errorf("stdout on exit 2: %q", out)
				}
				return
			}
			var doc struct{ Name string }
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			if doc.Name != tt.stdoutName {
				t.Errorf("name %q, want %q", doc.Name, tt.stdoutName)
			}
		})
	}
}

func TestShowHelp(t *testing.T) {
	code, out, _ := runMain(t, "show", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"prose show FILE", "Exit status", "Example", "prose show std/patterns/ratchet.prose.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}
