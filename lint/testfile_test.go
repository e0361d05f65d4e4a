package lint

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/internal/testenv"
)

const subjectFn = "---\nname: greet\nkind: function\n---\n\n### Parameters\n\n- `who`: a name\n- `tone`: optional, a tone\n\n### Returns\n\n- `greeting`: one sentence\n"

func testFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"go.mod": {Data: []byte("module x\n")}, "lib/greet.prose.md": {Data: []byte(subjectFn)}}
	for k, v := range files {
		fsys[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fsys
}

func TestTestFileRules(t *testing.T) {
	head := func(subject string) string { return "---\nname: t\nkind: test\nsubject: " + subject + "\n---\n\n" }
	cases := []struct {
		name, src string
		want      []string // "LINE:COL code" and a message fragment
	}{
		{"clean, subject by name from a subdirectory", head("greet") + "### Fixtures\n\n- `who`: \"Ada\"\n\n### Expects\n\n- `greeting`: contains `Ada`\n\n### Expects Not\n\n- `__error.md` exists\n", nil},
		{"clean, subject by path", head("../greet.prose.md") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\n- path: greeting\n  predicate: is not empty\n", nil},
		{"unknown subject", head("greeter") + "### Expects\n\n- `greeting`: is present\n", []string{"4:10 test/unknown-subject", `subject "greeter": no spec of that name in the test's directory or above it, up to the project root; did you mean greet?`}},
		{"unknown subject, nothing near", head("summarize") + "### Expects\n\n- `greeting`: is present\n", []string{"4:10 test/unknown-subject", `up to the project root [test/unknown-subject]`}},
		{"unknown fixture", head("greet") + "### Fixtures\n\n- `who`: Ada\n- `whom`: Bob\n\n### Expects\n\n- `greeting`: is present\n", []string{"10:1 test/unknown-fixture", `fixture "whom" names no input, slot, config key or callee of greet (did you mean who?)`}},
		{"missing input", head("greet") + "### Expects\n\n- `greeting`: is present\n", []string{"4:10 test/missing-input", `input "who" has no fixture and no default`}},
		{"unknown output", head("greet") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\n- `greting`: is present\n", []string{"13:1 test/unknown-output", `"greting" is no output of greet (did you mean greeting?)`}},
		{"empty expects", head("greet") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\nNothing yet.\n", []string{"11:1 test/empty-expects", "no ### Expects item"}},
		{"no subject", "---\nname: t\nkind: test\n---\n\n### Expects\n\n- `x`: is null\n", []string{"test/no-subject"}},
		{"a claim with a number in quotes", head("greet") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\n- `greeting`: has at most \"3\" words\n", []string{"13:1 test/near-form", `"has at most \"3\" words" is no claim prose decides from the data, so a model judges it; did you mean "has at most 3 words"?`}},
		{"a claim whose first words are a slip for a form", head("greet") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\n- `greeting`: has at mots 3 words\n", []string{"13:1 test/near-form", `"has at mots 3 words" is no claim prose decides from the data, so a model judges it; did you mean "has at most 3 words"?`}},
		{"a claim whose form's words are run together", head("greet") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\n- `greeting`: is atleast 10\n", []string{"13:1 test/near-form", `"is atleast 10" is no claim prose decides from the data, so a model judges it; did you mean "is at least 10"?`}},
		{"a claim for the model is no slip", head("greet") + "### Fixtures\n\n- `who`: Ada\n\n### Expects\n\n- `greeting`: is polite and warm\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := testFS(map[string]string{"lib/tests/t.test.prose.md": c.src})
			diags, err := File(fsys, "lib/tests/t.test.prose.md")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diags {
				if strings.HasPrefix(d.Code, "test/") {
					got = append(got, d.String())
				}
			}
			if len(c.want) == 0 {
				if len(got) > 0 {
					t.Errorf("findings on a clean test:\n%s", strings.Join(got, "\n"))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one finding, got:\n%s", strings.Join(got, "\n"))
			}
			pos, code, _ := strings.Cut(c.want[0], " ")
			if code == "" {
				code, pos = pos, ""
			}
			if !strings.Contains(got[0], ":"+pos+": error: ") && !strings.Contains(got[0], ":"+pos+": warning: ") && pos != "" || !strings.Contains(got[0], "["+code+"]") || !strings.Contains(got[0], c.want[len(c.want)-1]) {
				t.Errorf("got  %s\nwant %v", got[0], c.want)
			}
		})
	}
}

// Upstream's kind: test smoke file lints clean against its subject.
func TestSmokeKindTestLintsClean(t *testing.T) {
	smoke := filepath.Join(testenv.Corpus015(t, "smoke"), "08-kind-test.prose.md")
	res, err := Paths([]string{smoke}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diags {
		if strings.HasPrefix(d.Code, "test/") {
			t.Errorf("%s", d)
		}
	}
}

// nearForm reads any claim without panicking, and a claim it proposes is
// one the data decides.
func FuzzNearForm(f *testing.F) {
	for _, s := range []string{"is at leest 0.4", "contians `x`", "has at mots 3 items", "is polite", "", "is betwen 0 and 1", "is at least \"0.5\"", "equals '3'", "is atleast 3", "has atmost 2 items", "isnot empty"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, claim string) {
		if near := nearForm(claim); near != "" && !decided(near) {
			t.Errorf("nearForm(%q) = %q, which no form decides", claim, near)
		}
	})
}

// A fixture of another type than the input it gives is an error at its
// line: "10", quoted, is text, not the integer the subject declares.
func TestFixtureOfAnotherType(t *testing.T) {
	subject := "---\nname: price\nkind: function\n---\n\n### Parameters\n\n- `count` (integer): how many\n- `rush` (boolean, optional): today\n- `note`: anything\n\n### Returns\n\n- `total`: n\n"
	test := "---\nname: t\nkind: test\nsubject: price\n---\n\n### Fixtures\n\n- `count`: \"10\"\n- `rush`: false\n- `note`: 3\n\n### Expects\n\n- `total`: equals 8\n"
	fsys := testFS(map[string]string{"lib/price.prose.md": subject, "lib/tests/t.test.prose.md": test})
	diags, err := File(fsys, "lib/tests/t.test.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		if d.Code == CodeTestFixtureType {
			got = append(got, d.String())
		}
	}
	want := `lib/tests/t.test.prose.md:9:1: error: fixture "count" is "10", but price declares its input count (integer): write the number without quotes [test/fixture-type]`
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A config key's fixture is typed as --config types its text: one the
// run would refuse is an error at its line (the run's error named
// --config and no line); "3", quoted, is the flag text 3, as written on
// the command line.
func TestConfigFixtureOfAnotherType(t *testing.T) {
	subject := "---\nname: loop\nkind: pattern\n---\n\n### Slots\n\n- `w`: works\n\n### Config\n\n- `rounds` (integer, default: 2): how many\n- `fast` (boolean, default: false): hurry\n- `mode`: plain\n\n### Delegation\n\n```prose\nrepeat rounds:\n  call w\n    fast: fast\n    mode: mode\n```\n"
	test := "---\nname: t\nkind: test\nsubject: loop\n---\n\n### Fixtures\n\n- `w`: exec:true\n- `rounds`: 2.5\n- `fast`: maybe\n- `mode`: 3\n\n### Expects\n\n- is null\n"
	ok := strings.Replace(strings.Replace(test, "2.5", `"3"`, 1), "maybe", "true", 1)
	for src, want := range map[string][]string{
		test: {
			`lib/t.test.prose.md:10:1: error: fixture "rounds" is 2.5, but loop declares its config key rounds (integer): write an integer [test/fixture-type]`,
			`lib/t.test.prose.md:11:1: error: fixture "fast" is maybe, but loop declares its config key fast (boolean): write a boolean [test/fixture-type]`,
		},
		ok: nil,
	} {
		fsys := testFS(map[string]string{"lib/loop.prose.md": subject, "lib/t.test.prose.md": src})
		diags, err := File(fsys, "lib/t.test.prose.md")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range diags {
			if d.Code == CodeTestFixtureType {
				got = append(got, d.String())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	}
}

// neverHolds lints the test file test (lib/t.test.prose.md) of subject
// (lib/tri.prose.md) and returns its test/never-holds findings.
func neverHolds(t *testing.T, subject, test string) []string {
	t.Helper()
	fsys := testFS(map[string]string{"lib/tri.prose.md": subject, "lib/t.test.prose.md": test})
	diags, err := File(fsys, "lib/t.test.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		if d.Code == CodeTestNeverHolds {
			got = append(got, d.String())
		}
	}
	return got
}

// An Expects item that compares an output with a literal its declared
// type never is: an error at its line, since in Expects Not it passes
// whatever the subject gives (a test that cannot fail). A literal of the
// type, null, an untyped output and a member path are left alone.
func TestExpectationThatNeverHolds(t *testing.T) {
	subject := "---\nname: tri\nkind: function\n---\n\n### Parameters\n\n- `ticket`: text\n\n### Returns\n\n- `priority` (\"low\" | \"high\"): how urgent\n- `count` (integer): how many\n- `team`: who\n"
	test := "---\nname: t\nkind: test\nsubject: tri\n---\n\n### Fixtures\n\n- `ticket`: \"x\"\n- `tri`: exec:true\n\n### Expects\n\n- `count`: equals \"2\"\n- `count`: equals 2\n- `team`: equals 3\n\n### Expects Not\n\n- `priority`: equals \"urgent\"\n- `priority`: is \"high\"\n- `priority`: equals null\n- `count`: does not equal \"2\"\n"
	got := neverHolds(t, subject, test)
	want := []string{
		`lib/t.test.prose.md:14:1: error: count is declared (integer) at lib/tri.prose.md:13:4, so it never equals "2": this item always fails; write an integer [test/never-holds]`,
		`lib/t.test.prose.md:20:1: error: priority is declared ("low" | "high") at lib/tri.prose.md:12:4, so it never equals "urgent": this item always passes, whatever the subject gives; write one of "low", "high" [test/never-holds]`,
		`lib/t.test.prose.md:23:1: error: count is declared (integer) at lib/tri.prose.md:13:4, so it never equals "2": this item always fails; write an integer [test/never-holds]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// An Expects item `contains LIT` of a list output whose declared element
// type LIT never is, and `is one of` a set of values of another type
// than the output's, never hold: in Expects Not (or negated) they pass
// whatever the subject gives. Text elements that may hold the literal,
// a literal of the type, and outputs of no type or of text are left
// alone.
func TestContainsOrOneOfThatNeverHolds(t *testing.T) {
	subject := "---\nname: tri\nkind: function\n---\n\n### Parameters\n\n- `ticket`: text\n\n### Returns\n\n- `ids` (integer[]): found\n- `levels` (\"low\" | \"high\")[]: seen\n- `tags` (string[]): labels\n- `count` (integer): how many\n- `team`: who\n"
	test := "---\nname: t\nkind: test\nsubject: tri\n---\n\n### Fixtures\n\n- `ticket`: \"x\"\n- `tri`: exec:true\n\n### Expects\n\n- `ids`: contains 4\n- `levels`: contains \"hi\"\n- `tags`: contains 4\n- `team`: contains 4\n- `count`: is one of 1, 2\n\n### Expects Not\n\n- `ids`: contains \"4\"\n- `levels`: contains \"urgent\"\n- `count`: is one of \"1\", \"2\"\n- `ids`: is one of 1, 2\n- `tags`: contains \"4\"\n"
	got := neverHolds(t, subject, test)
	want := []string{
		`lib/t.test.prose.md:16:1: error: tags is declared (string[]) at lib/tri.prose.md:14:4, so it never contains 4: this item always fails; write a string [test/never-holds]`,
		`lib/t.test.prose.md:22:1: error: ids is declared (integer[]) at lib/tri.prose.md:12:4, so it never contains "4": this item always passes, whatever the subject gives; write an integer [test/never-holds]`,
		`lib/t.test.prose.md:24:1: error: count is declared (integer) at lib/tri.prose.md:15:4, so it is never one of "1", "2": this item always passes, whatever the subject gives; write an integer [test/never-holds]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A fixture's integer that its float64 value would hold as another
// integer is an error at its line, not a test run on a rounded input;
// one a double holds exactly is not.
func TestFixtureIntegerRounded(t *testing.T) {
	subject := "---\nname: big\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n- `y`: in\n\n### Returns\n\n- `n`: a number\n"
	test := "---\nname: t\nkind: test\nsubject: big\n---\n\n### Fixtures\n\n- `x`: {\"id\": 9007199254740993}\n- `y`: [9007199254740992, 123456789012345680000]\n\n### Expects\n\n- `n`: is present\n"
	fsys := testFS(map[string]string{"lib/big.prose.md": subject, "lib/t.test.prose.md": test})
	diags, err := File(fsys, "lib/t.test.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		if d.Code == CodeTestFixtureType {
			got = append(got, d.String())
		}
	}
	want := `lib/t.test.prose.md:9:1: error: fixture "x" holds the integer 9007199254740993, which the test would give as 9007199254740992 (a fixture's numbers are JSON numbers, exact up to 2^53): give it as a string [test/fixture-type]`
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// in a case's YAML too
	test = "---\nname: t\nkind: test\nsubject: big\n---\n\n### Fixtures\n\n- `y`: 1\n- fixture: one\n  x:\n    id: 9007199254740993\n\n### Expects\n\n- `n`: is present\n"
	fsys = testFS(map[string]string{"lib/big.prose.md": subject, "lib/t.test.prose.md": test})
	if diags, err = File(fsys, "lib/t.test.prose.md"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range diags {
		if d.Code == CodeTestFixtureType && strings.Contains(d.Message, "9007199254740993") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a case's integer rounded: %d findings\n%v", n, diags)
	}
}

// An inline node the subject calls that a model would render, and no
// fixture binds, is a warning in a test that binds another callee to a
// program: without a model the test is SKIP, with exit 0, for the
// fixture forgotten. Bound in every case, or in a test binding no
// program, it is not.
func TestModelCalleeInAnOfflineTest(t *testing.T) {
	subject := "---\nname: digest\nkind: function\n---\n\n### Parameters\n\n- `text`: t\n\n### Returns\n\n- `out`: o\n\n### Execution\n\n```prose\nlet a = call check\n  text: text\nlet b = call summarize\n  text: text\nreturn { out: [a, b] }\n```\n\n## check\n\n### Parameters\n\n- `text`: t\n\n### Returns\n\n- `ok`: o\n\n## summarize\n\n### Parameters\n\n- `text`: t\n\n### Returns\n\n- `summary`: s\n"
	head := "---\nname: t\nkind: test\nsubject: digest\n---\n\n### Fixtures\n\n- `text`: x\n"
	tail := "\n### Expects\n\n- `out`: is present\n"
	for _, c := range []struct{ name, fixtures, want string }{
		{"one bound to a program, one left", "- `check`: exec:./check.sh\n", "lib/tests/t.test.prose.md:4:10: warning: digest calls summarize, which no fixture binds, so a model renders it (without one the test is SKIP) while the test binds other callees to programs: add - `summarize`: exec:COMMAND under ### Fixtures [test/model-callee]"},
		{"both bound", "- `check`: exec:./check.sh\n- `summarize`: exec:./s.sh\n", ""},
		{"bound in each case", "- `check`: exec:./check.sh\n- fixture: a\n  summarize: exec:./s.sh\n- fixture: b\n  summarize: exec:./t.sh\n", ""},
		{"bound in one case only", "- `check`: exec:./check.sh\n- fixture: a\n  summarize: exec:./s.sh\n- fixture: b\n  text: y\n", "calls summarize, which no fixture binds"},
		{"no program bound: a model test", "", ""},
	} {
		fsys := testFS(map[string]string{"lib/digest.prose.md": subject, "lib/tests/t.test.prose.md": head + c.fixtures + tail})
		diags, err := File(fsys, "lib/tests/t.test.prose.md")
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, d := range diags {
			if d.Code == CodeTestModelCallee {
				got += d.String()
			}
		}
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
