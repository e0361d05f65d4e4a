package temporal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
)

// A node that declares ### Tools is refused before a Temporal run starts,
// naming the declaration, rather than rendered without its tools.
func TestToolSessionsAreRefusedOnTemporal(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: lookup\nkind: function\n---\n\n# Lookup\n\n### Parameters\n\n- `q`: what\n\n### Returns\n\n- `a`: the answer\n\n### Tools\n\n- `cli:sh`: a shell\n"
	if err := os.WriteFile(filepath.Join(dir, "lookup.prose.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(ResolveOptions{Path: "lookup.prose.md", Dir: dir, HaveModel: true,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "q", Value: "x"}}}})
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v (%T), want a usage error", err, err)
	}
	if !strings.Contains(err.Error()+strings.Join(ue.Messages(), "\n"), "cli:sh, at ") {
		t.Errorf("the refusal does not name the declaration: %v %q", err, ue.Problems)
	}
}

// A node that declares ### Skills is refused before a Temporal run
// starts, naming the declaration: a worker may not hold the skills the
// starter resolves.
func TestSkillsAreRefusedOnTemporal(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: lookup\nkind: function\n---\n\n# Lookup\n\n### Parameters\n\n- `q`: what\n\n### Returns\n\n- `a`: the answer\n\n### Skills\n\n- document-skills:pdf\n"
	if err := os.WriteFile(filepath.Join(dir, "lookup.prose.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(ResolveOptions{Path: "lookup.prose.md", Dir: dir, HaveModel: true,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "q", Value: "x"}}}})
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v (%T), want a usage error", err, err)
	}
	if msg := err.Error() + strings.Join(ue.Messages(), "\n"); !strings.Contains(msg, "### Skills (document-skills:pdf, at ") {
		t.Errorf("the refusal does not name the declaration: %s", msg)
	}
}
