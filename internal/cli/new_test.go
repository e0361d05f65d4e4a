package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/llm/llmtest"
)

// TestNewPatternLintsCleanAndRuns: the pattern `prose new` writes draws
// no diagnostic at all from lint, and runs with its one slot bound.
func TestNewPatternLintsCleanAndRuns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "code-review.prose.md")
	code, out, errs := runMain(t, "new", filepath.Join(dir, "code-review"))
	if code != 0 || strings.TrimSpace(out) != path || !strings.Contains(errs, "prose run "+path+" --slot worker=exec:") {
		t.Fatalf("new: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, out, errs := runMain(t, "lint", path); code != 0 || out != "" || errs != "" {
		t.Errorf("lint: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runMain(t, "run", path, "--slot", "worker=exec:cat", "--input", "task_brief=tidy up", "--no-journal", "--quiet")
	if code != 0 || !strings.Contains(out, `"task_brief": "tidy up"`) {
		t.Errorf("run: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	sp, _, err := callgraph.LoadSpec(path)
	if err != nil || sp.Name != "code-review" || sp.Title != "Code review" {
		t.Errorf("loaded %+v, %v", sp, err)
	}
}

// TestNewFunctionAndTest: the function and test kinds are written with
// their front matter and sections, and load without errors.
func TestNewFunctionAndTest(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args     []string
		file     string
		kind     string
		sections []string
	}{
		{[]string{"new", filepath.Join(dir, "summarize"), "--kind", "function"}, "summarize.prose.md", "function",
			[]string{"### Parameters", "### Returns", "### Execution", "```prose"}},
		{[]string{"new", filepath.Join(dir, "test-summarize"), "--kind", "test"}, "test-summarize.prose.md", "test",
			[]string{"subject: summarize\n", "### Fixtures", "### Expects\n", "### Expects Not"}},
	} {
		if code, _, errs := runMain(t, c.args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		path := filepath.Join(dir, c.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.sections {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s lacks %q", c.file, want)
			}
		}
		sp, diags, err := callgraph.LoadSpec(path)
		if err != nil || diags.HasErrors() || string(sp.Kind) != c.kind || sp.Name != strings.TrimSuffix(c.file, ".prose.md") {
			t.Errorf("%s: kind %q name %q, err %v, diagnostics:\n%s", c.file, sp.Kind, sp.Name, err, diags)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.prose.md")
	if code, _, _ := runMain(t, "new", path); code != 0 {
		t.Fatal("first new failed")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"new", path}, "exists; pick another name, or pass --force"},
		{[]string{"new", filepath.Join(dir, "Bad_Name")}, `"Bad_Name" is not a spec name`},
		{[]string{"new", filepath.Join(dir, "y"), "--kind", "gateway"}, `--kind "gateway": want pattern, function, responsibility or test`},
		{[]string{"new"}, "new takes one NAME"},
		{[]string{"new", "function", "summarize"}, "new takes one NAME and the kind as a flag: prose new summarize --kind function"},
	} {
		code, _, errs := runMain(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if code, _, errs := runMain(t, "new", path, "--force", "--kind", "function"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, errs)
	}
}

// TestNewFunctionRunsAndItsTestPasses: the function `prose new` writes
// lints clean and runs offline with its drafter bound to a program, as its
// text and the command's hint say, and with a model rendering the drafter;
// the test it writes lints clean and passes against it with no model.
func TestNewFunctionRunsAndItsTestPasses(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PROSE_MODEL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	code, _, errs := runMain(t, "new", "summarize", "--kind", "function")
	const slot = "drafter=exec:echo a first draft"
	if code != 0 || !strings.Contains(errs, "--slot '"+slot+"'") {
		t.Fatalf("new function: exit %d: %s", code, errs)
	}
	fn, _ := os.ReadFile("summarize.prose.md")
	if !strings.Contains(string(fn), "--slot '"+slot+"'") {
		t.Errorf("the function does not say how to run it offline:\n%s", fn)
	}
	if code, _, errs := runMain(t, "new", "test-summarize", "--kind", "test"); code != 0 || !strings.Contains(errs, "prose test test-summarize.prose.md") {
		t.Fatalf("new test: exit %d: %s", code, errs)
	}
	if code, out, errs := runMain(t, "lint", "summarize.prose.md", "test-summarize.prose.md"); code != 0 || out != "" || errs != "" {
		t.Errorf("lint: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs := runMain(t, "run", "summarize.prose.md", "--input", "text=a long text", "--slot", slot, "--no-journal", "--quiet")
	if code != 0 || !strings.Contains(out, `"result": "a first draft"`) {
		t.Errorf("run offline: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Without a binding and without a model, the run says which --slot
	// would serve the drafter.
	if code, _, errs := runMain(t, "run", "summarize.prose.md", "--input", "text=x", "--no-journal"); code != 2 || !strings.Contains(errs, "--slot drafter=exec:COMMAND") {
		t.Errorf("run without a model: exit %d, stderr %q", code, errs)
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"draft": "a model's draft"}`})
	code, out, errs = runMain(t, "run", "summarize.prose.md", "--input", "text=a long text", "--model", "m", "--base-url", srv.URL, "--no-journal", "--quiet")
	if code != 0 || !strings.Contains(out, `"result": "a model's draft"`) {
		t.Errorf("run with a model: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runMain(t, "test", "test-summarize.prose.md", "--run-dir", filepath.Join(dir, "runs"))
	if code != 0 || !strings.Contains(out, "PASS test-summarize") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("test: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// NAME-test names its subject too, not itself.
	if code, _, errs := runMain(t, "new", "summarize-test", "--kind", "test"); code != 0 {
		t.Fatalf("new summarize-test: exit %d: %s", code, errs)
	}
	code, out, errs = runMain(t, "test", "summarize-test.prose.md", "--run-dir", filepath.Join(dir, "runs"))
	if code != 0 || !strings.Contains(out, "PASS summarize-test") {
		t.Errorf("test summarize-test: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestNewResponsibilityInFolders: --kind responsibility writes one that
// lints clean (an id of its own included) and runs with its render bound
// to a program, and a NAME with folders makes them.
func TestNewResponsibilityInFolders(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "dir", "risk-radar.prose.md")
	code, out, errs := runMain(t, "new", "--kind", "responsibility", filepath.Join(dir, "sub", "dir", "risk-radar"))
	if code != 0 || strings.TrimSpace(out) != path {
		t.Fatalf("new: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, out, errs := runMain(t, "lint", path); code != 0 || out != "" || errs != "" {
		t.Errorf("lint: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runMain(t, "run", path, "--input", "source=the accounts", "--slot", `risk-radar=exec:echo '{"summary": "all quiet"}'`, "--no-journal", "--quiet")
	if code != 0 || !strings.Contains(out, `"summary": "all quiet"`) {
		t.Errorf("run: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
