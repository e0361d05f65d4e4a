package lint_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"

	"github.com/proselang/prose/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// specText is a minimal pattern spec named name with slot w and the given
// Delegation code.
func specText(name, code string) string {
	return "---\nname: " + name + "\nkind: pattern\n---\n\n# " + name + "\n\nA test pattern.\n\n" +
		"### Slots\n\n- `w`\n\n### Shape\n\n- `self`: coordinate\n- `delegates`:\n  - `w`: work\n\n" +
		"### Delegation\n\n```prose\n" + code + "\n```\n"
}

// codeLine is the .md line of the first Delegation code line of specText.
const codeLine = 23

// lintFS lints the whole of fsys, naming files relative to its root.
func lintFS(t testing.TB, fsys fs.FS) *lint.Result {
	t.Helper()
	res, err := lint.Paths([]string{"."}, lint.Options{Resolve: func(string) (fs.FS, string) { return fsys, "." }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCorpusGolden pins lint's full text output over the real-world corpus:
// exactly the known defects (fan-out's undeclared task_brief as the only
// error; unused output_dir, placeholder strings, re-lets and type
// mismatches as warnings).
func TestCorpusGolden(t *testing.T) {
	res := lintFS(t, os.DirFS(testenv.Corpus(t)))
	if res.Files != 19 {
		t.Errorf("linted %d files, want 19", res.Files)
	}
	var text bytes.Buffer
	if err := lint.Write(&text, lint.Text, res); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/corpus.golden", text.Bytes())

	errs := res.Diags.Errors()
	if len(errs) != 1 || errs[0].File != "fan-out.prose.md" || errs[0].Code != "check/undefined-name" ||
		!strings.Contains(errs[0].Message, "'task_brief'") {
		t.Errorf("error-level findings: want only fan-out's undefined task_brief, got:\n%s", errs)
	}
	want := map[string][]string{
		"blind-review.prose.md":   {"check/unused-config"},
		"race.prose.md":           {"check/placeholder-string"},
		"fallback-chain.prose.md": {"check/placeholder-string"},
		"dialectic.prose.md":      {"spec/type-mismatch", "check/redeclared", "check/redeclared"},
		"oversight.prose.md":      {"spec/type-mismatch", "check/redeclared"},
		"pipeline.prose.md":       {"check/redeclared"},
		"refine.prose.md":         {"spec/type-mismatch", "check/redeclared"},
		"worker-critic.prose.md":  {"spec/type-mismatch", "check/redeclared"},
	}
	got := map[string][]string{}
	for _, d := range res.Diags {
		if strings.HasPrefix(d.Code, "check/") || d.Code == "spec/type-mismatch" {
			got[d.File] = append(got[d.File], d.Code)
		}
	}
	// Findings are sorted by line: the inputs block comes before the
	// Delegation.
	for file, codes := range want {
		if fmt.Sprint(got[file]) != fmt.Sprint(codes) {
			t.Errorf("%s: got %v, want %v", file, got[file], codes)
		}
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestSyntaxErrors checks that a broken Delegation gives one precise
// syntax diagnostic at the right .md line and no cascade of check
// findings.
func TestSyntaxErrors(t *testing.T) {
	cases := []struct {
		name, code string
		line, col  int // line within the code block (1-based), .md column
	}{
		{"bad indent", "let a = 1\n    let b = 2\nreturn a", 2, 5},
		{"unclosed object", "let a = call w\nreturn {\n  result: a\n", 2, 8},
		{"catch without try", "let a = call w\ncatch as e:\n  return e", 2, 1},
		{"else without if", "let a = call w\nelse:\n  return a", 2, 1},
		{"missing colon", "let a = call w\nif a is present\n  return a", 2, 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"t.prose.md": {Data: []byte(specText("t", tc.code))}}
			res := lintFS(t, fsys)
			var syn diag.List
			for _, d := range res.Diags {
				if strings.HasPrefix(d.Code, "check/") {
					t.Errorf("check finding on a broken program: %s", d)
				}
				if d.Severity == diag.Error {
					syn = append(syn, d)
				}
			}
			if len(syn) != 1 {
				t.Fatalf("want exactly one error, got:\n%s", res.Diags)
			}
			if !strings.HasPrefix(syn[0].Code, "syntax/") || syn[0].Line != codeLine+tc.line-1 || syn[0].Col != tc.col {
				t.Errorf("got %s, want a syntax/ error at %d:%d", syn[0], codeLine+tc.line-1, tc.col)
			}
		})
	}
}

// TestPaths covers walking: directories are walked for *.prose.md (dot
// directories skipped), a file named twice is linted once, and an
// unreadable path is an error that leaves the other findings in place.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.prose.md", specText("a", "call w\n  x: missing_name"))
	write("sub/b.prose.md", specText("b", "return call w"))
	write(".hidden/c.prose.md", specText("c", "call nothing"))
	write("notes.md", "not a spec")

	a := filepath.Join(dir, "a.prose.md")
	missing := filepath.Join(dir, "missing.prose.md")
	res, err := lint.Paths([]string{dir, a, missing}, lint.Options{})
	var pe *lint.PathError
	if !errors.As(err, &pe) || len(pe.Errs) != 1 || !strings.Contains(err.Error(), "missing.prose.md") {
		t.Fatalf("want one path error naming missing.prose.md, got %v", err)
	}
	if res.Files != 2 {
		t.Errorf("linted %d files, want 2 (a and sub/b)", res.Files)
	}
	if len(res.Diags) != 1 || res.Diags[0].Code != "check/undefined-name" || res.Diags[0].File != a {
		t.Errorf("want one undefined-name finding in %s, got:\n%s", a, res.Diags)
	}
	if !res.HasErrors() {
		t.Error("HasErrors is false")
	}
}

// TestParallelMatchesSerial lints a directory with one worker and with
// several and expects the same findings.
func TestParallelMatchesSerial(t *testing.T) {
	fsys := generated(200)
	one, err := lint.Paths([]string{"."}, lint.Options{Workers: 1, Resolve: fixed(fsys)})
	if err != nil {
		t.Fatal(err)
	}
	many, err := lint.Paths([]string{"."}, lint.Options{Workers: 4, Resolve: fixed(fsys)})
	if err != nil {
		t.Fatal(err)
	}
	if one.Diags.String() != many.Diags.String() || one.Files != 200 || many.Files != 200 {
		t.Errorf("serial and parallel lint differ: %d/%d files\n%s---\n%s", one.Files, many.Files, one.Diags, many.Diags)
	}
}

func fixed(fsys fs.FS) lint.Resolver {
	return func(arg string) (fs.FS, string) { return fsys, arg }
}

// generated is a directory of n small specs, every seventh with an
// undefined name.
func generated(n int) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := range n {
		name := fmt.Sprintf("gen%04d", i)
		code := "let r = call w\n  brief: \"x\"\nrepeat 3 as k:\n  if r is present:\n    let r = call w\n      k: k\nreturn { result: r }"
		if i%7 == 0 {
			code += "\nreturn oops"
		}
		fsys[fmt.Sprintf("d%d/%s.prose.md", i%10, name)] = &fstest.MapFile{Data: []byte(specText(name, code))}
	}
	return fsys
}
