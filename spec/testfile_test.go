package spec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const sampleTest = "---\nname: sample\nkind: test\nsubject: ../patterns/ratchet.prose.md\n---\n\n# Sample\n\n" +
	"### Fixtures\n\n" +
	"- `task_brief`: \"ship it\"\n" +
	"- `limits`: {\"max\": 2,\n  \"min\": 1}\n" +
	"- `advancer`: `exec:sh ./a.sh`\n" +
	"- plain: some text\n" +
	"\n### Expects\n\n" +
	"- `result`: has 2 items\n" +
	"- path: result[0].step\n  predicate: is_integer_between(1, 3)\n" +
	"- nested\n  - path: `result`\n  - predicate: is present\n" +
	"- `__error.md` exists\n" +
	"- attempts <= 3\n" +
	"- `result[0].step`: equals 2\n" +
	"\n### Expects Not\n\n" +
	"- `result`: contains \"skip\"\n"

func TestReadTest(t *testing.T) {
	s, _ := Parse("t.test.prose.md", []byte(sampleTest))
	tf, diags := ReadTest(s)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %s", diags)
	}
	if tf.Name != "sample" || tf.Subject != "../patterns/ratchet.prose.md" || s.File.Position(tf.SubjectPos).String() != "t.test.prose.md:4:10" {
		t.Errorf("subject %q at %s", tf.Subject, s.File.Position(tf.SubjectPos))
	}
	var fx []string
	for _, f := range tf.Fixtures {
		fx = append(fx, f.Name+"="+f.Raw+"|"+s.File.Position(f.Pos).String())
	}
	want := []string{
		`task_brief="ship it"|t.test.prose.md:11:1`,
		"limits={\"max\": 2,\n\"min\": 1}|t.test.prose.md:12:1",
		"advancer=exec:sh ./a.sh|t.test.prose.md:14:1",
		"plain=some text|t.test.prose.md:15:1",
	}
	if strings.Join(fx, "\n") != strings.Join(want, "\n") {
		t.Errorf("fixtures:\n%s\nwant:\n%s", strings.Join(fx, "\n"), strings.Join(want, "\n"))
	}
	if v, ok := tf.Fixtures[0].Value.(string); !ok || v != "ship it" {
		t.Errorf("a JSON string fixture decodes: %#v", tf.Fixtures[0].Value)
	}
	if m, ok := tf.Fixtures[1].Value.(map[string]any); !ok || m["min"] != 1.0 {
		t.Errorf("a JSON object over two lines decodes: %#v", tf.Fixtures[1].Value)
	}
	var ex []string
	for _, e := range tf.Expects {
		ex = append(ex, e.Output+"|"+e.Path+"|"+e.Claim+"|"+s.File.Position(e.Pos).String()+"|"+map[bool]string{true: "not", false: ""}[e.Negated])
	}
	wantEx := []string{
		"result|result|has 2 items|t.test.prose.md:19:1|",
		"result|result[0].step|is_integer_between(1, 3)|t.test.prose.md:20:1|",
		"result|result|is present|t.test.prose.md:22:1|",
		"__error|__error.md|exists|t.test.prose.md:25:1|",
		"||attempts <= 3|t.test.prose.md:26:1|",
		"result|result[0].step|equals 2|t.test.prose.md:27:1|",
		"result|result|contains \"skip\"|t.test.prose.md:31:1|not",
	}
	if strings.Join(ex, "\n") != strings.Join(wantEx, "\n") {
		t.Errorf("expects:\n%s\nwant:\n%s", strings.Join(ex, "\n"), strings.Join(wantEx, "\n"))
	}
}

func TestReadTestProblems(t *testing.T) {
	src := "---\nname: bad\nkind: test\n---\n\n### Fixtures\n\n- no name here\n\n### Expects\n\n- `out`:\n\n### Fixtures\n\n- `n`: 5\n- `n`: 50\n- fixture: two\n  m: 2\n- fixture: two\n  m: 3\n"
	s, _ := Parse("bad.test.prose.md", []byte(src))
	_, diags := ReadTest(s)
	got := diags.String()
	for _, want := range []string{
		"bad.test.prose.md:1:1: error: a test needs a subject",
		"bad.test.prose.md:8:1: error: a fixture is written",
		"bad.test.prose.md:12:1: error: an expectation needs a claim",
		"bad.test.prose.md:17:1: error: fixture \"n\" is given twice (first on line 16): give it once",
		"bad.test.prose.md:20:1: error: fixture case \"two\" is named twice (first on line 18): give each case its own name",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"m" is given twice`) {
		t.Errorf("a second case of one name is reported as its fixtures given twice:\n%s", got)
	}
}

// A case's line means what it means outside a case: a value YAML
// refuses (": " in an exec: command) or reads as a comment (`#1`) is
// read as a fixture outside a case reads it, never refused or null.
func TestCaseLinesReadAsFixtures(t *testing.T) {
	src := "---\nname: c\nkind: test\nsubject: s\n---\n\n### Fixtures\n\n" +
		"- fixture: found\n  fetch: exec:echo '{\"body\": \"x\"}'\n  n: 3\n" +
		"- fixture: tag\n  tag: #1 priority\n  list:\n    - a\n" +
		"- fixture: nested\n  fetch: exec:echo '{\"a\": 1}'\n  more:\n    deep: x: y\n" +
		"\n### Expects\n\n- `out`: is present\n"
	s, _ := Parse("c.test.prose.md", []byte(src))
	tf, diags := ReadTest(s)
	var got []string
	for _, f := range tf.Fixtures {
		b, _ := json.Marshal(f.Value)
		got = append(got, f.Case+"|"+f.Name+"|"+string(b)+"|"+s.File.Position(f.Pos).String())
	}
	want := []string{
		`found|fetch|"exec:echo '{\"body\": \"x\"}'"|c.test.prose.md:10:3`,
		`found|n|3|c.test.prose.md:11:3`,
		`tag|tag|"#1 priority"|c.test.prose.md:13:3`,
		`tag|list|["a"]|c.test.prose.md:14:3`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fixtures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// lines that are no key: value each stay YAML's to read, and its
	// error is the case's
	if d := diags.String(); !strings.Contains(d, `c.test.prose.md:16:1: error: fixture case "nested"`) || strings.Count(d, "error") != 1 {
		t.Errorf("diagnostics:\n%s", d)
	}
}

func FuzzReadTest(f *testing.F) {
	f.Add(sampleTest)
	f.Add("---\nkind: test\nsubject: x\n---\n### Expects\n- `a`\n  - path:\n")
	f.Add("---\nkind: test\n---\n### Fixtures\n- `a`: `\n### Expects Not\n* `` ` ``: \n")
	f.Fuzz(func(t *testing.T, src string) {
		s, _ := Parse("f.test.prose.md", []byte(src))
		if s == nil {
			return
		}
		tf, _ := ReadTest(s)
		for _, e := range tf.Expects {
			if e.Pos < 0 || int(e.Pos) > len(src) {
				t.Fatalf("item position %d outside the file (%d bytes)", e.Pos, len(src))
			}
		}
		for _, fx := range tf.Fixtures {
			if fx.Pos < 0 || int(fx.Pos) > len(src) {
				t.Fatalf("fixture position %d outside the file", fx.Pos)
			}
		}
	})
}

// A bare subject is found by front-matter name, then by file stem, then as
// NAME/index.prose.md, in the test's directory and each parent up to the
// project root, as a call finds its callee; never beyond the root.
func TestResolveSubjectUpTheTree(t *testing.T) {
	fm := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\nkind: function\n---\n")}
	}
	fsys := fstest.MapFS{
		"outside.prose.md":                 fm("outside"),
		"proj/go.mod":                      &fstest.MapFile{Data: []byte("module x\n")},
		"proj/word-stats/index.prose.md":   fm("word-stats"),
		"proj/lib/renamed.prose.md":        fm("summarize"),
		"proj/lib/tests/t.test.prose.md":   fm("t"),
		"proj/lib/tests/deep.prose.md":     fm("deep-one"),
		"proj/lib/summarize.prose.md":      fm("something-else"),
		"proj/lib/stem-only.prose.md":      {Data: []byte("no front matter\n")},
		"proj/lib/tests/helper/x.prose.md": fm("x"),
	}
	test := "proj/lib/tests/t.test.prose.md"
	for subject, want := range map[string]string{
		"deep-one":   "proj/lib/tests/deep.prose.md",
		"summarize":  "proj/lib/renamed.prose.md", // the name beats the stem
		"stem-only":  "proj/lib/stem-only.prose.md",
		"word-stats": "proj/word-stats/index.prose.md",
		"outside":    "", // above the project root
		"x":          "", // below the test's directory: not searched
	} {
		if got := ResolveSubject(fsys, test, subject); got != want {
			t.Errorf("%s: got %q, want %q", subject, got, want)
		}
	}
}

// A fixture value that is a JSON string without escapes is read as
// json.Unmarshal reads it.
func TestPlainJSONString(t *testing.T) {
	for _, raw := range []string{`"x"`, `""`, `"a b: c"`, `"caf\u00e9"`, "\"caf\xc3\"", `"a\"b"`, `"a\nb"`, "\"tab\there\"", `"unclosed`, `x"`, `"a" "b"`, `3`, `{"a": 1}`} {
		checkPlainJSON(t, raw)
	}
	for _, raw := range []string{`"x"`, `""`, `"a b: c"`, "\"caf\u00e9\""} {
		if _, ok := plainJSONString(raw); !ok {
			t.Errorf("plainJSONString(%q) not read", raw)
		}
	}
}

func FuzzPlainJSONString(f *testing.F) {
	f.Add(`"plain words"`)
	f.Fuzz(checkPlainJSON)
}

func checkPlainJSON(t *testing.T, raw string) {
	s, ok := plainJSONString(raw)
	var v any
	err := json.Unmarshal([]byte(raw), &v)
	if ok && (err != nil || v != s) {
		t.Errorf("plainJSONString(%q) = %q; json.Unmarshal: %#v, %v", raw, s, v, err)
	}
}

// fixtureValueJSON is fixtureValue with every text but a code span sent
// to json.Unmarshal, as it was before its fast paths.
func fixtureValueJSON(raw string) (string, any, bool) {
	if inner, ok := codeSpan(raw); ok {
		return inner, inner, false
	}
	var v any
	if raw != "" && json.Unmarshal([]byte(raw), &v) == nil {
		return raw, v, true
	}
	return raw, raw, false
}

// A fixture value is read as json.Unmarshal reads it, whichever way
// fixtureValue takes: integers, texts that cannot start a JSON value,
// JSON after white space, numbers with leading zeros.
func TestFixtureValueMatchesJSON(t *testing.T) {
	for _, raw := range []string{"3", "0", "007", "-4", "120", "1e3", "999999999999999", "9999999999999999", " 3", "3 ", "\n[1]",
		"exec:sh ./reply.sh 'x'", "true", "nope", "null", `"a"`, `{"a": 1}`, "", " ", "`code`", "- x", "٣"} {
		checkFixtureValue(t, raw)
	}
}

func FuzzFixtureValue(f *testing.F) {
	for _, s := range []string{"3", "exec:sh x", "[1, 2]", " {}", "0"} {
		f.Add(s)
	}
	f.Fuzz(checkFixtureValue)
}

func checkFixtureValue(t *testing.T, raw string) {
	r1, v1, j1 := fixtureValue(raw)
	r2, v2, j2 := fixtureValueJSON(raw)
	if r1 != r2 || j1 != j2 || !reflect.DeepEqual(v1, v2) {
		t.Errorf("fixtureValue(%q) = %q, %#v, %v; json.Unmarshal's reading: %q, %#v, %v", raw, r1, v1, j1, r2, v2, j2)
	}
}
