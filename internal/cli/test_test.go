package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/std"
)

// The library's own tests pass with no model: every pattern test runs
// (none skipped); the role tests render, so without a model they are the
// skipped ones, and the closing line is "N passed, 0 failed, N skipped".
func TestProseTestStd(t *testing.T) {
	root := testenv.MustRoot(t)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("PROSE_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Chdir(root)
	code, out, errw := runMain(t, "test", "--run-dir", t.TempDir(), "std/")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errw)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	roles, _ := filepath.Glob(filepath.Join(root, "std", "tests", "roles", "*.test.prose.md"))
	if len(roles) != len(std.Roles()) {
		t.Errorf("%d role tests for %d roles", len(roles), len(std.Roles()))
	}
	// Without a model the role tests (they render) are the skipped ones;
	// every pattern test passes.
	want := fmt.Sprintf(`^\d+ passed, 0 failed, %d skipped$`, len(roles))
	if !regexp.MustCompile(want).MatchString(last) {
		t.Errorf("closing line %q, want %s", last, want)
	}
	patterns, _ := filepath.Glob(filepath.Join(root, "std", "patterns", "*.prose.md"))
	passed := strings.Count(out, "\nPASS ") + map[bool]int{true: 1}[strings.HasPrefix(out, "PASS ")]
	if passed < len(patterns) {
		t.Errorf("%d tests passed for %d patterns:\n%s", passed, len(patterns), out)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "SKIP ") && !strings.Contains(l, "needs a model") {
			t.Errorf("skipped for another reason than a model: %s", l)
		}
	}
	if n := strings.Count(out, "SKIP "); n != len(roles) {
		t.Errorf("%d skipped, want the %d role tests:\n%s", n, len(roles), out)
	}
	// Every library pattern is the subject of at least one test.
	for _, p := range patterns {
		name := strings.TrimSuffix(filepath.Base(p), ".prose.md")
		tests, _ := filepath.Glob(filepath.Join(root, "std", "tests", "*.test.prose.md"))
		found := false
		for _, tf := range tests {
			b, _ := os.ReadFile(tf)
			if strings.Contains(string(b), "subject: ../patterns/"+name+".prose.md\n") {
				found = true
			}
		}
		if !found {
			t.Errorf("no test has %s as its subject", name)
		}
	}
}

// writeFiles writes name/content pairs into a fresh directory and enters
// it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

const passingTest = "---\nname: passes\nkind: test\nsubject: std/patterns/pipeline.prose.md\n---\n\n### Fixtures\n\n" +
	"- `task_brief`: \"raw\"\n- `stages`: exec:cat >/dev/null; echo cooked\n\n### Expects\n\n- `result`: equals \"cooked\"\n"

func TestProseTestExitCodes(t *testing.T) {
	failing := strings.NewReplacer("passes", "fails", `equals "cooked"`, `equals "raw"`).Replace(passingTest)
	crashing := strings.NewReplacer("passes", "crashes", "echo cooked", "echo 'disk on fire' >&2; exit 4").Replace(passingTest)
	writeFiles(t, map[string]string{
		"a.test.prose.md":          passingTest,
		"b.test.prose.md":          failing,
		"c.test.prose.md":          crashing,
		"testdata/x.test.prose.md": strings.Replace(passingTest, "passes", "hidden", 1),
		".prose/y.test.prose.md":   strings.Replace(passingTest, "passes", "hidden2", 1),
	})
	code, out, errw := runMain(t, "test", "--parallel", "2")
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errw)
	}
	for _, want := range []string{
		"PASS passes (",
		"FAIL fails: 0/1 expectations\n    b.test.prose.md:14: expected: `result`: equals \"raw\"\n        observed: \"cooked\"\n",
		"ERROR crashes: ",
		"disk on fire",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n1 passed, 1 failed, 1 errors\n") || strings.Contains(out, "hidden") {
		t.Errorf("output:\n%s", out)
	}
	// testdata/ is skipped unless named.
	if code, out, _ := runMain(t, "test", "testdata"); code != 0 || !strings.Contains(out, "PASS hidden") {
		t.Errorf("named testdata: exit %d\n%s", code, out)
	}
	// --run selects by name.
	if code, out, _ := runMain(t, "test", "--run", "^pass"); code != 0 || out != strings.Replace(out, "FAIL", "", 1) || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
		t.Errorf("--run: exit %d\n%s", code, out)
	}
	// --json: one object per test.
	code, out, _ = runMain(t, "test", "--json", "--run", "passes|fails")
	recs := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(recs) != 2 {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	var rec struct{ Name, Status string }
	if err := json.Unmarshal([]byte(recs[1]), &rec); err != nil || rec.Name != "fails" || rec.Status != "fail" {
		t.Errorf("--json record %q: %+v %v", recs[1], rec, err)
	}
	// --junit writes the file; --format github annotates the unmet item.
	code, out, _ = runMain(t, "test", "--junit", "report.xml", "--format", "github", "b.test.prose.md")
	if b, err := os.ReadFile("report.xml"); code != 1 || err != nil || !strings.Contains(string(b), `<testcase name="fails"`) {
		t.Errorf("--junit: exit %d, %v\n%s", code, err, b)
	}
	if !strings.Contains(out, "::error file=b.test.prose.md,line=14,col=1::fails: expected: `result`: equals \"raw\"; observed: \"cooked\" [test/fail]\n") {
		t.Errorf("github annotations:\n%s", out)
	}
}

// A test that cannot run as written is an ERROR with its problems on
// stderr, and the other tests still run (upstream: "all tests run, no
// early exit"); so is a file that does not load at all. Bad usage is 2.
func TestProseTestUsage(t *testing.T) {
	noFixture := strings.Replace(strings.Replace(passingTest, "- `task_brief`: \"raw\"\n", "", 1), "name: passes", "name: unfed", 1)
	writeFiles(t, map[string]string{"a.test.prose.md": passingTest, "b.test.prose.md": noFixture,
		"c.test.prose.md": "---\nname: c\nkind: test\n---\n\n### Expects\n\n- `x`: is present\n"})
	code, out, errw := runMain(t, "test", "--run-dir", t.TempDir())
	if code != 1 || !strings.Contains(errw, `b.test.prose.md:4:10: error: the subject's input "task_brief" has no fixture and no default`) {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, out, errw)
	}
	for _, want := range []string{"PASS ", "ERROR unfed: cannot run as written: b.test.prose.md:4:10: error:", "ERROR c: cannot run as written: c.test.prose.md", "1 passed, 0 failed, 2 errors"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{
		{"test", "--run", "("},
		{"test", "--format", "xml"},
		{"test", "--parallel", "0"},
		{"test", "no-such-dir"},
	} {
		if code, _, _ := runMain(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// Upstream's kind: test smoke file runs against its subject (a function
// rendered by the model): it passes when the model's answer carries the
// phrase, and fails (exit 1) naming the unmet item and the answer when it
// does not. Both phrases are decided from the data: one model request per
// run, the render's.
func TestSmokeKindTest(t *testing.T) {
	smoke := filepath.Join(testenv.Corpus015(t, "smoke"), "08-kind-test.prose.md")
	for _, tc := range []struct {
		answer string
		code   int
		want   []string
	}{
		{"Echoing kind test smoke fixture: caller-input-smoke-pass.", 0, []string{"PASS smoke-kind-test (", "\n1 passed, 0 failed\n"}},
		{"Echoing kind test smoke fixture.", 1, []string{
			"FAIL smoke-kind-test: 2/3 expectations\n",
			"08-kind-test.prose.md:20: expected: `echo`: contains the exact phrase `caller-input-smoke-pass`\n        observed: \"Echoing kind test smoke fixture.\"\n",
			"\n0 passed, 1 failed\n"}},
	} {
		srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"echo": tc.answer}))
		t.Setenv("OPENAI_BASE_URL", srv.URL)
		t.Setenv("OPENAI_API_KEY", testKey)
		t.Setenv("PROSE_MODEL", "model-env")
		code, out, errw := runMain(t, "test", "--run-dir", t.TempDir(), smoke)
		if code != tc.code {
			t.Errorf("answer %q: exit %d, want %d\n%s%s", tc.answer, code, tc.code, out, errw)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("answer %q: output lacks %q:\n%s", tc.answer, w, out)
			}
		}
		if n := srv.Count(); n != 1 {
			t.Errorf("answer %q: %d model requests, want the render's one", tc.answer, n)
		} else if body := string(srv.Requests()[0].Body); !strings.Contains(body, "kind test smoke fixture") {
			t.Errorf("the render was not given the fixture: %s", body)
		}
	}
	// Without a model the test is skipped with the reason, never passed;
	// --strict makes that an error.
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("PROSE_MODEL", "")
	code, out, _ := runMain(t, "test", "--run-dir", t.TempDir(), smoke)
	if code != 0 || !strings.Contains(out, "SKIP smoke-kind-test: needs a model, and none is configured: smoke-caller-input renders through a model\n") || !strings.HasSuffix(out, "0 passed, 0 failed, 1 skipped\n") {
		t.Errorf("no model: exit %d\n%s", code, out)
	}
	if code, out, _ := runMain(t, "test", "--strict", "--run-dir", t.TempDir(), smoke); code != 1 || !strings.Contains(out, "ERROR smoke-kind-test: ") {
		t.Errorf("--strict: exit %d\n%s", code, out)
	}
}

// The library's role tests render through a model, so they live in
// std/tests/testdata (prose test std/, run with no model in CI, does not
// walk into them). Against the fake model server every one passes, with
// one request per render and one for the claim only a model can judge;
// without a model every one is skipped.
func TestRoleTests(t *testing.T) {
	root := testenv.MustRoot(t)
	answers := map[string]map[string]any{
		"critic":     {"accepted": false, "verdict": "reject", "reasoning": "The early return skips the close.", "issues": []string{"the file stays open on the early return"}},
		"classifier": {"category": "billing", "confidence": 0.9, "reason": "a refund is a payment matter, not a delivery one"},
		"extractor":  {"values": map[string]any{"number": "88", "vendor": "Acme", "due date": "2026-12-01", "amount": nil}, "missing": []string{"amount"}},
		"formatter":  {"formatted": `{"name": "Ada", "age": 36}`},
		"planner":    {"steps": []string{"tag v1.2", "build the binaries", "publish the release notes"}, "done-when": "the tag and the release page exist"},
		"researcher": {"findings": []map[string]any{{"finding": "Go 1.23", "source": "the Go 1.23 release notes", "confidence": "high"}}, "open-questions": []string{}},
		"router":     {"route": "shipping", "reason": "a parcel that never arrived is a delivery problem"},
		"summarizer": {"summary": "The ratchet keeps certified steps only, proposes at most max_steps times, and returns what was certified even when interrupted."},
		"verifier":   {"passed": true, "checks": []map[string]any{{"rule": "is a semantic version", "holds": true, "evidence": "1.2.0"}, {"rule": "starts with v", "holds": true, "evidence": "v"}}},
		"writer":     {"draft": "Release 1.2 is out. Update to get the faster parser."},
	}
	script := []llmtest.Reply{{Match: "is faithful to the text", Content: `{"reasoning": "it restates the text", "holds": true}`}}
	for role, a := range answers {
		r := llmtest.JSON(a)
		r.Match = "[" + role + "-fixture]"
		script = append(script, r)
	}
	srv := llmtest.NewServer(t, script...)
	t.Chdir(root)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("PROSE_MODEL", "model-env")
	code, out, errw := runMain(t, "test", "--run-dir", t.TempDir(), "std/tests/roles")
	if code != 0 || strings.Count(out, "PASS ") != len(answers) || !strings.HasSuffix(out, "\n10 passed, 0 failed\n") {
		t.Fatalf("exit %d\n%s%s", code, out, errw)
	}
	if n := srv.Count(); n != len(answers)+1 {
		t.Errorf("%d model requests, want %d renders and 1 judgment", n, len(answers))
	}
	var roles []string
	for _, e := range std.Roles() {
		roles = append(roles, e.Name)
	}
	for _, r := range roles {
		if _, ok := answers[r]; !ok {
			t.Errorf("role %s has no test", r)
		}
	}

	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("PROSE_MODEL", "")
	code, out, _ = runMain(t, "test", "--run-dir", t.TempDir(), "std/tests/roles")
	if code != 0 || strings.Count(out, "SKIP ") != len(answers) || !strings.HasSuffix(out, "0 passed, 0 failed, 10 skipped\n") {
		t.Errorf("no model: exit %d\n%s", code, out)
	}
}

// prose test of paths holding no test exits 1 saying so (--allow-empty:
// 0), as does a --run matching none; a --junit file that cannot be
// written is refused (exit 2) before any test runs.
func TestTestRefusesNothingAndABadReport(t *testing.T) {
	empty := t.TempDir()
	if code, _, stderr := runMain(t, "test", empty); code != exitFailure || !strings.Contains(stderr, "no kind: test files in "+empty) {
		t.Errorf("no tests: exit %d stderr %q, want 1 naming the path", code, stderr)
	}
	if code, out, stderr := runMain(t, "test", "--allow-empty", empty); code != 0 || !strings.Contains(out, "0 passed") {
		t.Errorf("--allow-empty: exit %d stdout %q stderr %q", code, out, stderr)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	test := "---\nname: marks\nkind: test\nsubject: std/patterns/guard.prose.md\n---\n\n# Marks\n\n### Fixtures\n\n" +
		"- `task_brief`: \"go\"\n- `guard`: exec:touch " + marker + "; echo '{\"proceed\": true}'\n- `target`: exec:echo done\n\n### Expects\n\n- `proceeded`: is true\n"
	if err := os.WriteFile(filepath.Join(dir, "marks.test.prose.md"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain(t, "test", "--run-dir", t.TempDir(), "--run", "nothing-like-it", dir); code != exitFailure || !strings.Contains(stderr, `matches --run "nothing-like-it"`) {
		t.Errorf("--run matching none: exit %d stderr %q", code, stderr)
	}
	code, _, stderr := runMain(t, "test", "--run-dir", t.TempDir(), "--junit", filepath.Join(dir, "no-such-dir", "r.xml"), dir)
	if code != exitUsage || !strings.Contains(stderr, "--junit") {
		t.Errorf("bad --junit: exit %d stderr %q, want 2", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the test ran before the bad --junit path was refused")
	}
	report := filepath.Join(dir, "r.xml")
	if err := os.WriteFile(report, []byte(strings.Repeat("old report ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runMain(t, "test", "--run-dir", t.TempDir(), "--junit", report, dir); code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, stderr)
	}
	if b, _ := os.ReadFile(report); !strings.HasPrefix(string(b), "<?xml") || strings.Contains(string(b), "old report") {
		t.Errorf("the report was not replaced: %.200s", b)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the test did not run: %v", err)
	}
}

// prose test std/ runs the built-in library's own tests from any
// directory, as prose lint std/ lints the library.
func TestTestStdOutsideTheRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("PROSE_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	code, out, stderr := runMain(t, "test", "--run-dir", t.TempDir(), "--run", "^(guard|ratchet)", "std/")
	if code != 0 || !strings.Contains(out, "PASS guard-approval-runs-the-target") || !strings.Contains(out, "PASS ratchet-keeps-only-certified-steps") {
		t.Errorf("prose test std/ outside the repository: exit %d stdout %q stderr %q", code, out, stderr)
	}
}
