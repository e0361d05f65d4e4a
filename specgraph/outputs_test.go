package specgraph_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/outputs.golden")

// TestOutputsUnchanged holds what prose lint and prose show print for every
// spec file of std/, testdata/spec and upstream's two trees (when they are
// beside the repository): a digest of the lint report of each whole tree,
// and of each file's loaded JSON with its findings and its own lint
// report, against testdata/outputs.golden. Work on the loader, the graph
// or the checks that is meant to be invisible (making them cheaper) must
// leave every line as it is; a change that is meant to show is rewritten
// into the file with -update, and the diff of the golden file says which
// files it touched.
func TestOutputsUnchanged(t *testing.T) {
	root := testenv.MustRoot(t)
	// A tool a spec declares (cli:jq in upstream's declared-tools
	// example) is looked up on PATH: one on every machine, so the
	// findings do not depend on what this one has installed.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "jq"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	trees := []struct{ name, dir string }{
		{"std", filepath.Join(root, "std")},
		{"testdata/spec", filepath.Join(root, "testdata", "spec")},
	}
	upstream := filepath.Join(root, "..", "shared", "corpus")
	for _, v := range []string{"openprose-0.11", "openprose-0.15"} {
		dir := filepath.Join(upstream, v)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			if testenv.InCI() {
				t.Errorf("the corpus tree %s is missing", dir)
			}
			continue
		}
		trees = append(trees, struct{ name, dir string }{v, dir})
	}
	var got []string
	for _, tr := range trees {
		// diagnostics name files as given: relative to the tree, so the
		// digests do not depend on where the checkout is
		t.Chdir(tr.dir)
		got = append(got, digestLine(t, tr.name, "lint", lintText(t, ".")))
		var files []string
		err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, lint.Suffix) {
				files = append(files, filepath.ToSlash(p))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			got = append(got, digestLine(t, tr.name+"/"+f, "show", showText(t, f)))
			got = append(got, digestLine(t, tr.name+"/"+f, "lint", lintText(t, f)))
		}
	}
	golden := filepath.Join(root, "specgraph", "testdata", "outputs.golden")
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./specgraph -run TestOutputsUnchanged -update writes it)", err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(trees) < 4 {
		// only the trees that are here
		want = slices.DeleteFunc(want, func(l string) bool {
			name := strings.Fields(l)[2]
			return strings.HasPrefix(name, "openprose-") && !slices.ContainsFunc(trees, func(tr struct{ name, dir string }) bool {
				return strings.HasPrefix(name, tr.name+"/") || name == tr.name
			})
		})
	}
	if len(got) != len(want) {
		t.Fatalf("%d outputs, the golden file has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("changed: %s (was %s)", got[i], want[i])
		}
	}
}

// digestLine is "sha256 KIND NAME", the digest's first 16 hex digits.
func digestLine(t *testing.T, name, kind string, out []byte) string {
	t.Helper()
	sum := sha256.Sum256(out)
	return fmt.Sprintf("%x %s %s", sum[:8], kind, name)
}

// lintText is prose lint PATH's text report (and its error).
func lintText(t *testing.T, p string) []byte {
	t.Helper()
	res, err := lint.Paths([]string{p}, lint.Options{Workers: 2})
	var b bytes.Buffer
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	if err := lint.Write(&b, lint.Text, res); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(&b, res.Summary())
	return b.Bytes()
}

// showText is what prose show FILE prints: the loader's findings with the
// static checks', and the spec as JSON.
func showText(t *testing.T, p string) []byte {
	t.Helper()
	sp, diags, err := spec.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	diags = append(diags, lint.Spec(sp, diags)...).Dedupe()
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(diags.String()), js...)
	if sp.Kind == "test" {
		// the fixtures and expectations, as show prints them too
		tf, d := spec.ReadTest(sp)
		b, err := json.Marshal(tf)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, d.String()...), b...)
	}
	return out
}
