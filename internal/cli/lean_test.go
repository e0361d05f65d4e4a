package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/lintcli"
)

// TestLeanProseAgrees: for the commands the program prose serves itself
// (package lintcli), it prints and exits exactly as the whole command line
// does: findings in every format, a bad format, paths that do not exist or
// hold no spec, standard input, and the version.
func TestLeanProseAgrees(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.prose.md")
	src := "---\nname: a\nkind: pattern\n---\n\n# A\n\nOne.\n\n### Slots\n\n- `w`\n\n### Delegation\n\n```prose\nlet r = call ww\nreturn { result: r }\n```\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"lint", bad},
		{"lint", "--format", "json", bad},
		{"lint", "--format", "sarif", bad},
		{"lint", "../../std/patterns/ratchet.prose.md"},
		{"lint", "std/patterns/ratchet.prose.md"},
		{"lint", dir},
		{"lint", "--format", "yaml", bad},
		{"lint", filepath.Join(dir, "none")},
		{"lint", "-", "--allow-empty"},
		{"lint", "--format=github", "--", bad},
		{"lint", "--allow-empty", filepath.Join(dir, "empty")},
		{"version"},
		{"--version"},
		{"-v"},
	} {
		var fullOut, fullErr, leanOut, leanErr bytes.Buffer
		fullCode := Main(args, strings.NewReader(src), &fullOut, &fullErr)
		leanCode := lintcli.Main(args, strings.NewReader(src), &leanOut, &leanErr)
		if !lintcli.Serves(args) {
			t.Errorf("%q: not served by prose", args)
			continue
		}
		if leanCode != fullCode || leanOut.String() != fullOut.String() || leanErr.String() != fullErr.String() {
			t.Errorf("%q: prose exits %d with\n%s%s\nprose-full exits %d with\n%s%s", args, leanCode, leanOut.String(), leanErr.String(), fullCode, fullOut.String(), fullErr.String())
		}
	}
}
