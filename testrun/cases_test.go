package testrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const echoSubject = "---\nname: echo\nkind: function\n---\n\n### Parameters\n\n- `request`: text\n- `count` (integer): how many\n\n### Returns\n\n- `reply`: the text\n\n### Execution\n\n```prose\nreturn request\n```\n"

// Fixtures read as YAML where people write YAML: a block scalar keeps its
// lines (not a literal "|"), and `- fixture: NAME` items are cases of the
// test, each run with the shared fixtures and its own.
func TestFixtureBlockScalarsAndCases(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "echo.prose.md"), []byte(echoSubject), 0o644); err != nil {
		t.Fatal(err)
	}
	block := writeTest(t, dir, "block.test.prose.md", "---\nname: block\nkind: test\nsubject: echo\n---\n\n### Fixtures\n\n- `count`: 1\n- `request`: |\n    first line\n    second line\n\n### Expects\n\n- `reply`: contains \"second\"\n")
	c, err := Load(block)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Inputs["request"]; got != "first line\nsecond line\n" {
		t.Errorf("block scalar = %q", got)
	}
	cases := writeTest(t, dir, "cases.test.prose.md", "---\nname: cases\nkind: test\nsubject: echo\n---\n\n### Fixtures\n\n- `count`: 2\n- fixture: literal\n  request: |\n    hello\n    world\n- fixture: folded\n  request: >-\n    one\n    two\n\n### Expects\n\n- `reply`: contains \"o\"\n")
	cs, err := LoadCases(cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Name != "cases/literal" || cs[1].Name != "cases/folded" {
		t.Fatalf("cases %v", names(cs))
	}
	if cs[0].Inputs["request"] != "hello\nworld\n" || cs[1].Inputs["request"] != "one two" {
		t.Errorf("requests %q, %q", cs[0].Inputs["request"], cs[1].Inputs["request"])
	}
	if cs[0].Inputs["count"] != float64(2) || cs[1].Inputs["count"] != float64(2) {
		t.Errorf("the shared fixture reaches every case: %v, %v", cs[0].Inputs, cs[1].Inputs)
	}
	rs := runFiles(t, Options{}, block)
	if rs[0].Status != Pass {
		t.Errorf("block: %s %s", rs[0].Status, rs[0].Reason)
	}
	s, err := Prepare(cs, Options{ScratchDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range s.Run(t.Context(), Options{}) {
		if r.Status != Pass {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Reason)
		}
	}
	// A case that leaves out a required input is named.
	bad := writeTest(t, dir, "bad.test.prose.md", "---\nname: bad\nkind: test\nsubject: echo\n---\n\n### Fixtures\n\n- `count`: 2\n- fixture: empty\n  count: 3\n\n### Expects\n\n- `reply`: contains \"o\"\n")
	if _, err := LoadCases(bad); err == nil || !strings.Contains(err.Error(), `fixture case "empty" gives no value for the subject's input "request"`) {
		t.Errorf("err = %v", err)
	}
}

func names(cs []*Case) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}
