package std_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

var wantRoles = []string{"classifier", "critic", "extractor", "formatter", "planner", "researcher", "router", "summarizer", "verifier", "writer"}

// The role functions: one file each, named by its stem, a function with
// parameters and returns, in the project's own words.
func TestRoles(t *testing.T) {
	var names []string
	for _, e := range std.Roles() {
		names = append(names, e.Name)
		if e.Path != "std/roles/"+e.Name+".prose.md" || e.Kind != "function" || e.Summary == "" {
			t.Errorf("entry %+v", e)
		}
		sp, diags, err := spec.LoadFS(std.FS(), e.Path)
		if err != nil || len(diags) > 0 {
			t.Fatalf("%s: %v %v", e.Path, err, diags)
		}
		if sp.Name != e.Name || sp.Kind != "function" || len(sp.Inputs) == 0 || len(sp.Outputs) == 0 || !sp.Renders() || sp.Title == "" {
			t.Errorf("%s: name %q kind %q inputs %d outputs %d", e.Path, sp.Name, sp.Kind, len(sp.Inputs), len(sp.Outputs))
		}
	}
	if !slices.Equal(names, wantRoles) {
		t.Errorf("roles %v, want %v", names, wantRoles)
	}
}

// No line of 40 characters or more repeats a line of the upstream roles.
func TestRolesOwnWords(t *testing.T) {
	dir := testenv.Corpus015(t, "roles")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	corpus := map[string]bool{}
	for _, e := range entries {
		for _, l := range longLines(t, filepath.Join(dir, e.Name())) {
			corpus[l] = true
		}
	}
	for _, e := range std.Roles() {
		data, _ := std.ReadFile(e.Path)
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 40 && corpus[l] {
				t.Errorf("%s repeats a corpus line: %q", e.Path, l)
			}
		}
	}
}
