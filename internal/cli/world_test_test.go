package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// suiteTests copies the basic-unit-suite and the test files of its
// acceptance cases (testdata/world/suite) into one directory, and builds
// the offline renders they bind ($PROSE_BUS).
func suiteTests(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := testenv.Corpus015(t, "examples/basic-unit-suite/src")
	for _, from := range []string{src, filepath.Join(testenv.MustRoot(t), "testdata", "world", "suite")} {
		files, err := filepath.Glob(filepath.Join(from, "*.prose.md"))
		if err != nil || len(files) == 0 {
			t.Fatal(from, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	bus := filepath.Join(t.TempDir(), "bus")
	if out, err := exec.Command("go", "build", "-o", bus, filepath.Join(testenv.MustRoot(t), "testdata", "world", "bus")).CombinedOutput(); err != nil {
		t.Fatalf("building bus: %v\n%s", err, out)
	}
	t.Setenv("PROSE_BUS", bus)
	return dir
}

// prose test runs the basic-unit-suite's cases written as tests with
// ### Drains: each passes, and each drain is a checked item.
func TestWorldTestsOfTheSuite(t *testing.T) {
	dir := suiteTests(t)
	var out, errw bytes.Buffer
	code := Main([]string{"test", dir}, strings.NewReader(""), &out, &errw)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errw.String())
	}
	for _, name := range []string{"u01-cold-start", "u03-identical-event", "u05-metadata-event", "u06-diamond", "u09-self-tick", "u10-failure", "seeded-alert-state"} {
		if !strings.Contains(out.String(), "PASS "+name+" ") {
			t.Errorf("%s did not pass:\n%s", name, out.String())
		}
	}
	if !strings.Contains(out.String(), "7 passed, 0 failed") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// A drain whose receipts differ from what the item lists fails the test
// at the item's line, with what the drain did.
func TestWorldTestDrainMismatchFails(t *testing.T) {
	dir := suiteTests(t)
	p := filepath.Join(dir, "u03-identical-event.test.prose.md")
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte("    skipped: [counter-events]\n"), []byte("    skipped: [counter-events, count-summary]\n"), 1)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	code := Main([]string{"test", p}, strings.NewReader(""), &out, &errw)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errw.String())
	}
	for _, want := range []string{
		"FAIL u03-identical-event",
		"u03-identical-event.test.prose.md:19: expected: drain 2 skipped [count-summary, counter-events], 0 programs",
		"observed: rendered [], skipped [counter-events], failed []; 0 programs",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}

// A ### Drains naming a node the project lacks cannot run: an error at
// the name, with the node meant.
func TestWorldTestUnknownNode(t *testing.T) {
	dir := suiteTests(t)
	p := filepath.Join(dir, "u09-self-tick.test.prose.md")
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte("ticks: [count-trend]"), []byte("ticks: [count-trnd]"), 1)
	os.WriteFile(p, b, 0o644)
	var out, errw bytes.Buffer
	if code := Main([]string{"test", p}, strings.NewReader(""), &out, &errw); code == 0 {
		t.Fatalf("exit 0\n%s", out.String())
	}
	if !strings.Contains(out.String()+errw.String(), "u09-self-tick.test.prose.md:19:13: error: ### Drains names \"count-trnd\", which is no node of the drained graph; did you mean \"count-trend\"?") {
		t.Errorf("output:\n%s%s", out.String(), errw.String())
	}
}

// Fixture cases of a test with ### Drains each drain a fresh state.
func TestWorldTestFixtureCases(t *testing.T) {
	dir := suiteTests(t)
	p := filepath.Join(dir, "cases.test.prose.md")
	src := "---\nname: cases\nkind: test\nsubject: alert-state\n---\n\n# Cases\n\n### Fixtures\n\n" +
		"- fixture: crossed\n  CountSummary: {\"structured\": {\"total\": 7, \"threshold_crossed\": true}}\n" +
		"- fixture: quiet\n  CountSummary: {\"structured\": {\"total\": 0, \"threshold_crossed\": false}}\n\n" +
		"### Drains\n\n```yaml\nbind:\n  \"*\": exec:\"$PROSE_BUS\"\ndrains:\n  - rendered: [alert-state]\n```\n\n### Expects\n\n- `threshold`: equals 5\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if code := Main([]string{"test", p}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errw.String())
	}
	for _, want := range []string{"PASS cases/crossed ", "PASS cases/quiet ", "2 passed, 0 failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q:\n%s", want, out.String())
		}
	}
}
