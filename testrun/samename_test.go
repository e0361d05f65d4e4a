package testrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two test files of one name are both errors naming the other file, not
// two PASS under one name in the JUnit report.
func TestSameNameRefused(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/certify.test.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := os.ReadFile("testdata/svc.sh")
	os.WriteFile(filepath.Join(dir, "svc.sh"), svc, 0o755)
	a, b := filepath.Join(dir, "a.test.prose.md"), filepath.Join(dir, "b.test.prose.md")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs := runFiles(t, Options{Parallel: 1}, a, b)
	if len(rs) != 2 {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs {
		other := []string{b, a}[i]
		if r.Status != Error || !strings.Contains(r.Reason, `test name "certified-steps" is also the name of `+other) {
			t.Errorf("%s: %s %q", r.File, r.Status, r.Reason)
		}
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, rs); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(junit.String(), "<testcase") && !strings.Contains(junit.String(), "<error") {
		t.Errorf("JUnit reports no error:\n%s", junit.String())
	}
}
