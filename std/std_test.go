package std_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/std"
)

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"std":                             "std",
		"std/":                            "std",
		"std/patterns":                    "std/patterns",
		"std/patterns/race.prose.md":      "std/patterns/race.prose.md",
		"std/patterns/race":               "std/patterns/race.prose.md",
		"std/race":                        "std/patterns/race.prose.md",
		"std/race.prose.md":               "std/patterns/race.prose.md",
		"./std/patterns/../patterns/race": "std/patterns/race.prose.md",
		"std/FORMAT.md":                   "std/FORMAT.md",
	} {
		got, ok := std.Canonical(in)
		if !ok || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"std/nope", "patterns/race.prose.md", "race", "/std/race", "std/patterns/race/x"} {
		if got, ok := std.Canonical(in); ok {
			t.Errorf("Canonical(%q) = %q, want not found", in, got)
		}
	}
}

func TestOpenPrefersDisk(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// Not on disk: the embedded file, named canonically.
	data, name, err := std.Open("std/ratchet")
	if err != nil || name != "std/patterns/ratchet.prose.md" || !strings.Contains(string(data), "name: ratchet") {
		t.Fatalf("Open(std/ratchet) = %q, %v", name, err)
	}
	// On disk: the disk file wins.
	if err := os.MkdirAll(filepath.Join("std", "patterns"), 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join("std", "patterns", "ratchet.prose.md")
	if err := os.WriteFile(local, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, name, err = std.Open(local)
	if err != nil || string(data) != "mine" || name != local {
		t.Errorf("Open(%s) = %q, %q, %v; want the disk file", local, data, name, err)
	}
	// Resolve follows the same rule for lint.
	fsys, rname := std.Resolve("std/patterns")
	if st, err := fs.Stat(fsys, rname); err != nil || !st.IsDir() {
		t.Errorf("Resolve(std/patterns) = %q: %v", rname, err)
	}
	if ents, _ := fs.ReadDir(fsys, rname); len(ents) != 1 {
		t.Errorf("Resolve(std/patterns) read %d entries, want the one disk file", len(ents))
	}
	fsys, rname = std.Resolve("std/race")
	if _, err := fs.Stat(fsys, rname); err != nil || rname != "std/patterns/race.prose.md" {
		t.Errorf("Resolve(std/race) = %q: %v", rname, err)
	}
}

func TestOpenMissing(t *testing.T) {
	t.Chdir(t.TempDir())
	_, _, err := std.Open("std/patterns/nope.prose.md")
	if !errors.Is(err, fs.ErrNotExist) && (err == nil || !strings.Contains(err.Error(), "ratchet")) {
		t.Errorf("err %v: want a not-found error listing the patterns", err)
	}
	if _, _, err := std.Open("elsewhere.prose.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err %v for a plain missing file, want the disk's not-exist", err)
	}
	if _, err := std.ReadFile("std/patterns/nope"); err == nil {
		t.Error("ReadFile of a missing pattern succeeded")
	}
}

func TestWalk(t *testing.T) {
	all, ok := std.Walk("std")
	if !ok || len(all) != len(wantPatterns)+len(wantRoles) {
		t.Fatalf("Walk(std) = %d files, %v", len(all), ok)
	}
	for i, p := range all[:len(wantPatterns)] {
		if want := "std/patterns/" + wantPatterns[i] + ".prose.md"; p != want {
			t.Errorf("Walk(std)[%d] = %s, want %s", i, p, want)
		}
	}
	if one, ok := std.Walk("std/guard"); !ok || len(one) != 1 || one[0] != "std/patterns/guard.prose.md" {
		t.Errorf("Walk(std/guard) = %v, %v", one, ok)
	}
	if _, ok := std.Walk("elsewhere"); ok {
		t.Error("Walk of a non-library path succeeded")
	}
}

func TestList(t *testing.T) {
	list := std.List()
	if len(list) != len(wantPatterns) {
		t.Fatalf("List has %d entries", len(list))
	}
	for i, e := range list {
		if e.Name != wantPatterns[i] || e.Path != "std/patterns/"+e.Name+".prose.md" {
			t.Errorf("entry %d: %+v", i, e)
		}
		if e.Title == "" || len(e.Summary) < 20 || strings.Contains(e.Summary, "\n") || strings.HasPrefix(e.Summary, "#") {
			t.Errorf("%s: title %q summary %q", e.Name, e.Title, e.Summary)
		}
	}
}

func TestFS(t *testing.T) {
	var files []string
	for _, n := range wantPatterns {
		files = append(files, "std/patterns/"+n+".prose.md")
	}
	files = append(files, "std/patterns/README.md", "std/FORMAT.md")
	if err := fstest.TestFS(std.FS(), files...); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"/std", "../std", "other", "std/x"} {
		if _, err := std.FS().Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}

func ExampleList() {
	for _, e := range std.List()[:3] {
		fmt.Println(e.Name, e.Path)
	}
	// Output:
	// assumption-miner std/patterns/assumption-miner.prose.md
	// blind-review std/patterns/blind-review.prose.md
	// coherence-probe std/patterns/coherence-probe.prose.md
}
