package testrun

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
)

// suite loads the named test files of testdata (or of dir) and runs them.
func runFiles(t *testing.T, opts Options, files ...string) []*Result {
	t.Helper()
	var cases []*Case
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			t.Fatalf("load %s: %v", f, err)
		}
		cases = append(cases, c)
	}
	opts.RunDir = t.TempDir()
	opts.ScratchDir = t.TempDir()
	s, err := Prepare(cases, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.Run(context.Background(), opts)
}

func byName(rs []*Result) map[string]*Result {
	m := map[string]*Result{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

// A passing test, a scripted service that breaks the pattern's promise
// (the certifier rejects every step, so nothing is kept) and a crashing
// service run side by side: PASS, FAIL with the unmet item and its value,
// ERROR with the end of the program's stderr; none loses the others.
func TestOutcomesSideBySide(t *testing.T) {
	files := []string{"testdata/certify.test.prose.md", "testdata/invariant.test.prose.md", "testdata/crash.test.prose.md"}
	rs := runFiles(t, Options{Parallel: 3}, files...)
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	got := byName(rs)
	if r := got["certified-steps"]; r.Status != Pass || r.Passed != 3 || r.RunID == "" {
		t.Errorf("certified-steps: %+v", r)
	}
	fail := got["breaks-invariant"]
	if fail.Status != Fail || fail.Passed != 2 || len(fail.Items) != 3 {
		t.Fatalf("breaks-invariant: %+v", fail)
	}
	it := fail.Items[0]
	if it.Status != Fail || it.Observed != "[]" || it.Pos.Line != 16 || !strings.HasSuffix(it.Pos.File, "invariant.test.prose.md") {
		t.Errorf("unmet item: %+v", it)
	}
	crash := got["crashes"]
	if crash.Status != Error || !strings.Contains(crash.Reason, "out of memory: cannot allocate 4096 bytes") {
		t.Errorf("crashes: %+v", crash)
	}

	var out bytes.Buffer
	WriteText(&out, rs)
	text := out.String()
	for _, want := range []string{
		"PASS certified-steps (",
		"FAIL breaks-invariant: 2/3 expectations\n",
		"testdata/invariant.test.prose.md:16: expected: `result`: has 2 items\n        observed: [] (0 items)\n",
		"ERROR crashes: ",
		"\n1 passed, 1 failed, 1 errors\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "1 passed, 1 failed, 1 errors\n") {
		t.Errorf("the closing line is not last:\n%s", text)
	}
}

func TestClosingLine(t *testing.T) {
	for c, want := range map[Counts]string{
		{Passed: 3}:                        "3 passed, 0 failed",
		{Passed: 1, Failed: 2, Errors: 1}:  "1 passed, 2 failed, 1 errors",
		{Passed: 1, Skipped: 2}:            "1 passed, 0 failed, 2 skipped",
		{Failed: 1, Errors: 2, Skipped: 3}: "0 passed, 1 failed, 2 errors, 3 skipped",
	} {
		if got := c.String(); got != want {
			t.Errorf("%+v: %q, want %q", c, got, want)
		}
	}
}

// writeTest writes a test file into dir.
func writeTest(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Problems of a test are found before anything runs, every one with its
// position: an input with no fixture, a fixture naming nothing (with a
// did-you-mean), an unknown subject.
func TestLoadProblems(t *testing.T) {
	dir := t.TempDir()
	p := writeTest(t, dir, "x.test.prose.md", `---
name: x
kind: test
subject: std/patterns/ratchet.prose.md
---

### Fixtures

- `+"`advancr`"+`: exec:true
- `+"`certifier`"+`: exec:true

### Expects

- `+"`result`"+`: is present
`)
	_, err := Load(p)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v", err)
	}
	msg := le.Error()
	for _, want := range []string{
		"x.test.prose.md:9:1: error: fixture \"advancr\" names no input, slot, config key or callee of ratchet (did you mean advancer?) [test/unknown-fixture]",
		"x.test.prose.md:4:10: error: the subject's input \"task_brief\" has no fixture and no default",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	q := writeTest(t, dir, "y.test.prose.md", "---\nname: y\nkind: test\nsubject: no-such-thing\n---\n\n### Expects\n\n- `a`: is null\n")
	if _, err := Load(q); err == nil || !strings.Contains(err.Error(), "y.test.prose.md:4:10: error: subject \"no-such-thing\"") {
		t.Errorf("unknown subject: %v", err)
	}
	pat := writeTest(t, dir, "p.prose.md", "---\nname: p\nkind: pattern\n---\n")
	if _, err := Load(pat); err == nil || !strings.Contains(err.Error(), "p.prose.md:1:1: error: not a test file (kind: pattern)") {
		t.Errorf("a pattern named as a test: %v", err)
	}
}

// A bare subject name is matched against front-matter names in the test's
// directory, then above it, up to the project root.
func TestSubjectByName(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644)
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(root, "a", "thing.prose.md"), []byte("---\nname: widget\nkind: function\n---\n"), 0o644)
	test := filepath.Join(sub, "t.test.prose.md")
	if got := SubjectPath(test, "widget"); got != filepath.Join(root, "a", "thing.prose.md") {
		t.Errorf("widget -> %q", got)
	}
	if got := SubjectPath(test, "thing"); got != filepath.Join(root, "a", "thing.prose.md") {
		t.Errorf("by stem -> %q", got)
	}
	outside := filepath.Join(filepath.Dir(root), "elsewhere.prose.md")
	_ = outside
	if got := SubjectPath(test, "nothing"); got != "" {
		t.Errorf("nothing -> %q", got)
	}
	// In the nearest package root: packages/co/evals/x.eval.prose.md names
	// a subject in packages/co/services/.
	svc := filepath.Join(root, "packages", "co", "services")
	evals := filepath.Join(root, "packages", "co", "evals")
	os.MkdirAll(svc, 0o755)
	os.MkdirAll(evals, 0o755)
	os.WriteFile(filepath.Join(svc, "readiness.prose.md"), []byte("---\nname: agent-readiness\nkind: function\n---\n"), 0o644)
	eval := filepath.Join(evals, "agent-readiness.eval.prose.md")
	if got := SubjectPath(eval, "agent-readiness"); got != filepath.Join(svc, "readiness.prose.md") {
		t.Errorf("agent-readiness from evals/ -> %q", got)
	}
	// The nearest level wins over a farther one.
	os.WriteFile(filepath.Join(root, "packages", "widget.prose.md"), []byte("---\nname: widget\nkind: function\n---\n"), 0o644)
	if got := SubjectPath(eval, "widget"); got != filepath.Join(root, "packages", "widget.prose.md") {
		t.Errorf("widget from evals/ -> %q, want the nearer packages/widget", got)
	}
}

const politeTest = `---
name: NAME
kind: test
subject: std/patterns/ratchet.prose.md
---

### Fixtures

- ` + "`task_brief`" + `: "ship it"
- ` + "`max_steps`" + `: 1
- ` + "`advancer`" + `: exec:echo '"Thank you kindly."'
- ` + "`certifier`" + `: exec:echo certify

### Expects

- ` + "`result`" + `: has 1 item
- ` + "`result`" + `: is polite
`

// A claim only a model can judge, with no model configured: SKIP with the
// reason, never PASS; --strict makes it an error.
func TestNeedsModelSkips(t *testing.T) {
	dir := t.TempDir()
	p := writeTest(t, dir, "p.test.prose.md", strings.Replace(politeTest, "NAME", "polite", 1))
	r := runFiles(t, Options{}, p)[0]
	if r.Status != Skip || !strings.Contains(r.Reason, `"result is polite" needs a model`) {
		t.Errorf("no model: %+v", r)
	}
	r = runFiles(t, Options{Strict: true}, p)[0]
	if r.Status != Error || !strings.Contains(r.Reason, "--strict") {
		t.Errorf("strict: %+v", r)
	}
	// A subject with an llm slot and no model is skipped too.
	q := writeTest(t, dir, "q.test.prose.md", strings.NewReplacer("NAME", "llm-slot", "exec:echo certify", "llm", "- `result`: is polite\n", "").Replace(politeTest))
	r = runFiles(t, Options{}, q)[0]
	if r.Status != Skip || !strings.Contains(r.Reason, "certifier is bound to llm") {
		t.Errorf("llm slot: %+v", r)
	}
}

// A subject whose choice needs a model, with none configured: SKIP,
// naming the choice as a choice (not a condition).
func TestNeedsModelForAChoiceSkips(t *testing.T) {
	dir := t.TempDir()
	writeTest(t, dir, "pick.prose.md", "---\nname: pick\nkind: function\n---\n\n### Parameters\n\n- `t`: a ticket\n\n### Returns\n\n- `route`: a route\n\n### Execution\n\n```prose\nchoice right queue for t:\n  option \"billing\":\n    return \"B\"\n  option \"tech\":\n    return \"T\"\n```\n")
	p := writeTest(t, dir, "pick.test.prose.md", "---\nname: pick-test\nkind: test\nsubject: pick\n---\n\n### Fixtures\n\n- `t`: \"refund\"\n\n### Expects\n\n- `route`: is \"B\"\n")
	r := runFiles(t, Options{}, p)[0]
	if r.Status != Skip || !strings.Contains(r.Reason, `choice "right queue for t" at `) || !strings.Contains(r.Reason, "needs a model to pick an option") {
		t.Errorf("got %+v, want a skip naming the choice", r)
	}
}

// With a model, undecided claims go to it: once per distinct question
// across the whole suite.
func TestModelJudgesClaimsOnce(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Match: "is polite", Content: `{"reasoning": "courteous", "holds": true}`, Times: -1})
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "m", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := writeTest(t, dir, "a.test.prose.md", strings.Replace(politeTest, "NAME", "a", 1))
	b := writeTest(t, dir, "b.test.prose.md", strings.Replace(politeTest, "NAME", "b", 1))
	rs := runFiles(t, Options{Models: Models{Claims: llm.NewModelJudge(c, llm.JudgeOptions{})}, Parallel: 1}, a, b)
	for _, r := range rs {
		if r.Status != Pass || r.Items[1].Rule != "model" {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("the model was asked %d times for one question", n)
	}
}

// The JUnit report parses back into the common JUnit structure:
// testsuites > testsuite > testcase, counts that agree with the cases, a
// name, classname and numeric time on each case, at most one outcome
// child.
func TestJUnitParsesBack(t *testing.T) {
	rs := runFiles(t, Options{}, "testdata/certify.test.prose.md", "testdata/invariant.test.prose.md", "testdata/crash.test.prose.md")
	rs = append(rs, &Result{Name: "skipped <one> & \"quoted\"", File: "s.test.prose.md", Status: Skip, Reason: "needs a model"})
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, rs); err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   string   `xml:"tests,attr"`
		Suites  []struct {
			Name     string `xml:"name,attr"`
			Tests    string `xml:"tests,attr"`
			Failures string `xml:"failures,attr"`
			Errors   string `xml:"errors,attr"`
			Skipped  string `xml:"skipped,attr"`
			Time     string `xml:"time,attr"`
			Cases    []struct {
				Name      string   `xml:"name,attr"`
				Classname string   `xml:"classname,attr"`
				Time      string   `xml:"time,attr"`
				Failure   *problem `xml:"failure"`
				Error     *problem `xml:"error"`
				Skipped   *problem `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if len(doc.Suites) != 1 || doc.Tests != "4" {
		t.Fatalf("suites %d, tests %q", len(doc.Suites), doc.Tests)
	}
	s := doc.Suites[0]
	fails, errs, skips := 0, 0, 0
	for _, c := range s.Cases {
		if c.Name == "" || c.Classname == "" {
			t.Errorf("case without name or classname: %+v", c)
		}
		if _, err := strconv.ParseFloat(c.Time, 64); err != nil {
			t.Errorf("time %q", c.Time)
		}
		n := 0
		if c.Failure != nil {
			fails, n = fails+1, n+1
			if !strings.Contains(c.Failure.Body, "observed: []") || c.Failure.Message != "2/3 expectations" {
				t.Errorf("failure: %+v", c.Failure)
			}
		}
		if c.Error != nil {
			errs, n = errs+1, n+1
		}
		if c.Skipped != nil {
			skips, n = skips+1, n+1
		}
		if n > 1 {
			t.Errorf("%s has %d outcomes", c.Name, n)
		}
	}
	if strconv.Itoa(len(s.Cases)) != s.Tests || strconv.Itoa(fails) != s.Failures || strconv.Itoa(errs) != s.Errors || strconv.Itoa(skips) != s.Skipped {
		t.Errorf("counts %s/%s/%s/%s disagree with cases %d/%d/%d/%d", s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), fails, errs, skips)
	}
	if s.Cases[3].Name != `skipped <one> & "quoted"` {
		t.Errorf("name did not round-trip: %q", s.Cases[3].Name)
	}
}

// Annotations are escaped exactly as prose lint's github format escapes
// its findings: they are written by it.
func TestGitHubAnnotationsEscapeAsLint(t *testing.T) {
	pos := diag.Position{File: "dir,a:b/t.test.prose.md", Line: 7, Col: 1}
	rs := []*Result{{Name: "t", Status: Fail, Passed: 0, Items: []*Item{{
		Text: "`out`: contains `100%`", Pos: pos, Status: Fail, Observed: "\"50%\\r\\nline\"", Rule: "contains",
	}}}}
	var got, want bytes.Buffer
	if err := WriteGitHub(&got, rs); err != nil {
		t.Fatal(err)
	}
	d := diag.Diagnostic{Position: pos, Severity: diag.Error, Code: "test/fail",
		Message: "t: expected: `out`: contains `100%`; observed: \"50%\\r\\nline\""}
	if err := lint.Write(&want, lint.GitHub, &lint.Result{Diags: diag.List{d}}); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("got  %q\nwant %q", got.String(), want.String())
	}
	if !strings.Contains(got.String(), "file=dir%2Ca%3Ab/t.test.prose.md,line=7,col=1::") || !strings.Contains(got.String(), "100%25") {
		t.Errorf("not escaped: %q", got.String())
	}
	// A real newline in a message (an error's stderr) is escaped too.
	got.Reset()
	WriteGitHub(&got, []*Result{{Name: "e", Status: Error, Reason: "exit 1:\nboom", Pos: pos}})
	if strings.Count(got.String(), "\n") != 1 || !strings.Contains(got.String(), "exit 1:%0Aboom") {
		t.Errorf("error annotation: %q", got.String())
	}
}

// Cancelling the context stops running tests (their programs too) and the
// tests still waiting: each is an ERROR saying it was interrupted.
func TestCancelStopsTests(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	slow := strings.NewReplacer("NAME", "slow", "exec:echo '\"Thank you kindly.\"'", "exec:touch "+started+"; sleep 60", "- `result`: is polite\n", "").Replace(politeTest)
	waiting := strings.Replace(slow, "name: slow", "name: waiting", 1)
	a := writeTest(t, dir, "a.test.prose.md", slow)
	b := writeTest(t, dir, "b.test.prose.md", waiting)
	var cases []*Case
	for _, p := range []string{a, b} {
		c, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	opts := Options{Parallel: 1, ScratchDir: t.TempDir()}
	s, err := Prepare(cases, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(started); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	rs := s.Run(ctx, opts)
	for _, r := range rs {
		if r.Status != Error || !strings.Contains(r.Reason, "interrupted") {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
}

// A responsibility subject runs once, rendered by the model, and its
// Maintains names are the outputs the items read.
func TestResponsibilitySubject(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "watch.prose.md"), []byte("---\nname: release-watch\nkind: responsibility\n---\n\n### Requires\n\n- `tags`: the tags pushed so far\n\n### Maintains\n\n- `latest`: the newest tag\n"), 0o644)
	p := writeTest(t, dir, "watch.test.prose.md", "---\nname: watch\nkind: test\nsubject: release-watch\n---\n\n### Fixtures\n\n- `tags`: [\"v1.1\", \"v1.2\"]\n\n### Expects\n\n- `latest`: equals \"v1.2\"\n")
	for answer, want := range map[string]Status{"v1.2": Pass, "v1.1": Fail} {
		srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"latest": answer}))
		c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "m", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		render := callgraph.RenderWith(func(string) (*llm.Client, error) { return c, nil })
		r := runFiles(t, Options{Models: Models{Render: render}}, p)[0]
		if r.Status != want {
			t.Errorf("answer %s: %+v", answer, r)
		}
		if n := srv.Count(); n != 1 || !strings.Contains(string(srv.Requests()[0].Body), "v1.1") {
			t.Errorf("answer %s: %d requests", answer, n)
		}
	}
}

// An Expects item whose path reads nothing (an index past the end, a
// member of text, no path at all) fails, under Expects Not too: judged
// as null, `equals "x"` of it passed there, checking nothing. A presence
// claim is decided on the null.
func TestPathThatReadsNothing(t *testing.T) {
	dir := t.TempDir()
	subject := "---\nname: words\nkind: function\n---\n\n### Parameters\n\n- `text`: t\n\n### Returns\n\n- `words` (string[]): the words\n\n### Execution\n\n```prose\nreturn { words: [\"a\", \"b\"] }\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "words.prose.md"), []byte(subject), 0o644); err != nil {
		t.Fatal(err)
	}
	test := writeTest(t, dir, "w.test.prose.md", "---\nname: w\nkind: test\nsubject: words\n---\n\n### Fixtures\n\n- `text`: x\n\n### Expects\n\n- path: words[5]\n  predicate: is absent\n\n### Expects Not\n\n- path: words[5]\n  predicate: equals \"a\"\n- path: words.0\n  predicate: equals \"a\"\n- path: words[1].x\n  predicate: equals \"a\"\n- path: words[0]\n  predicate: equals \"b\"\n")
	rs := runFiles(t, Options{}, test)
	if len(rs) != 1 || rs[0].Status != Fail || rs[0].Passed != 2 || len(rs[0].Items) != 5 {
		t.Fatalf("%+v", rs[0])
	}
	for i, want := range []string{"", "the path cannot be read: index 5 out of range", "the path cannot be read: \"words.0\" is not a path", "the path cannot be read: this value is text", ""} {
		it := rs[0].Items[i]
		if (want == "") != (it.Status == Pass) || !strings.Contains(it.Detail, want) {
			t.Errorf("item %d: %+v, want %q", i, it, want)
		}
	}
}
