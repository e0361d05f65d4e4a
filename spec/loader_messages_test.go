package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoaderMessages: messages that say what is wrong rather than what
// the loader saw: a big file is over the limit (not "4194305 bytes"),
// CR-only line endings are named as such, and a front matter key YAML
// cannot read is reported, not silently dropped.
func TestLoaderMessages(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.prose.md")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", MaxSize+100)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags, err := Load(big)
	if err != nil {
		t.Fatal(err)
	}
	if got := diags.String(); !strings.Contains(got, "file is over the 4 MiB limit of a spec") || strings.Contains(got, "4194305") {
		t.Errorf("large file: %s", got)
	}

	cr := strings.ReplaceAll("---\nname: c\nkind: pattern\n---\n\n# C\n", "\n", "\r")
	_, diags = Parse("c.prose.md", []byte(cr))
	if got := diags.String(); !strings.Contains(got, "c.prose.md:1:1: error: no front matter found: the file's lines end with a carriage return alone") {
		t.Errorf("CR-only: %s", got)
	}

	var b strings.Builder
	b.WriteString("---\nname: y\nkind: pattern\na: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n")
	prev := "a"
	for _, c := range []string{"b", "c", "d", "e"} {
		b.WriteString(c + ": &" + c + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n")
		prev = c
	}
	b.WriteString("---\n\n# Y\n")
	s, diags := Parse("y.prose.md", []byte(b.String()))
	got := diags.String()
	for _, key := range []string{"d", "e"} {
		want := "warning: front matter key \"" + key + "\" is ignored: its value cannot be read (document contains excessive aliasing) [spec/dropped-key]"
		if !strings.Contains(got, want) {
			t.Errorf("aliases: key %s: %s", key, got)
		}
		if _, ok := s.Front[key]; ok {
			t.Errorf("key %s kept", key)
		}
	}
	if s.Name != "y" {
		t.Errorf("name %q", s.Name)
	}
}
