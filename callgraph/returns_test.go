package callgraph_test

import (
	"path/filepath"
	"strings"
	"testing"
)

const typedF = "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic` (string): what\n\n" +
	"### Returns\n\n- `count` (integer): how many\n- `title` (string): a title\n\n"

// A function's result is checked against its declared output types where
// it arrives: at its own return (the error at the return's line), and at
// each call of it as a callee (an error of that attempt, so on_fail
// applies). null is of no type but null's: it passes only for an output
// declared optional or `T | null`; an undeclared type checks nothing.
func TestOutputTypesChecked(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		// (n assigned in a loop, so lint does not know its type and the
		// run reaches the check)
		"f.prose.md":  typedF + exe("let n = null\nrepeat 1:\n  n = \"many\"\nreturn { count: n, title: \"T \" + topic }"),
		"ok.prose.md": typedF + exe("return { count: 3, title: \"t\" }"),
		// (t set to null in a loop: lint refuses a literal null, and the
		// run checks what lint cannot know)
		"null.prose.md": typedF + exe("let t = \"x\"\nrepeat 1:\n  t = null\nreturn { count: 3, title: t }"),
		"optional.prose.md": strings.Replace(strings.Replace(typedF, "`title` (string)", "`title` (string, optional)", 1), "(integer)", "(integer | null)", 1) +
			exe("return { count: null, title: null }"),
		"caller.prose.md": fn("caller", "", "out", exe("let r = call counter\n  topic: \"x\"\n  on_fail use { count: 0, title: \"none\" }\nreturn r.count")) +
			"## counter\n\n### Parameters\n\n- `topic` (string): what\n\n### Returns\n\n- `count` (integer): how many\n- `title` (string): a title\n\n",
		"missing.prose.md": fn("missing", "", "summary score", exe("let r = null\nrepeat 1:\n  r = { summary: \"s\" }\nif r:\n  return r\nreturn r")),
	})
	_, err := runContract(t, filepath.Join(dir, "f.prose.md"), nil, map[string]string{"topic": "x"}, nil)
	want := filepath.Join(dir, "f.prose.md") + `:21:1: f returns "many" for its output count, which it declares (integer) at`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "return an integer") {
		t.Fatalf("err %v, want %q", err, want)
	}
	v, err := runContract(t, filepath.Join(dir, "ok.prose.md"), nil, map[string]string{"topic": "x"}, nil)
	if err != nil || asJSON(t, v) != `{"count":3,"title":"t"}` {
		t.Fatalf("well typed: %v %v", v, err)
	}
	// null for a string is a wrong type, named with the fix
	_, err = runContract(t, filepath.Join(dir, "null.prose.md"), nil, map[string]string{"topic": "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "f returns null for its output title, which it declares (string)") ||
		!strings.Contains(err.Error(), "return a string, or declare `title` (string, optional) if it may be empty") {
		t.Fatalf("null for a string output: %v", err)
	}
	v, err = runContract(t, filepath.Join(dir, "optional.prose.md"), nil, map[string]string{"topic": "x"}, nil)
	if err != nil || asJSON(t, v) != `{"count":null,"title":null}` {
		t.Fatalf("null where declared optional: %v %v", v, err)
	}
	// the callee, bound to a program answering text, falls back
	v, err = runContract(t, filepath.Join(dir, "caller.prose.md"), []string{`counter=exec:echo '{"count": "seven", "title": "t"}'`}, nil, nil)
	if err != nil || asJSON(t, v) != `{"out":0}` {
		t.Fatalf("a callee of the wrong type: %v %v; want its fallback", v, err)
	}
	// several returns: the message names the Execution
	_, err = runContract(t, filepath.Join(dir, "missing.prose.md"), nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `without the key "score"`) || !strings.Contains(err.Error(), "(returned by one of the returns at lines 18, 19)") {
		t.Fatalf("missing output: %v", err)
	}
}

// A ### Maintains postcondition the data decides is checked where the
// node's value is made, however it is run: a function whose Maintains
// should be Returns (lint only warns of the section) and a responsibility
// run as a file, not drained, fail rather than return what their contract
// refuses; a callee's failing answer is an error of that call, so its
// fallback applies.
func TestMaintainsPostconditionsAreChecked(t *testing.T) {
	maintains := "### Maintains\n\n- `total` (integer): the running total\n- postcondition: `total` is at least 0\n\n"
	dir := writeFiles(t, map[string]string{
		"f.prose.md": "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `x` (integer): a number\n\n" + maintains +
			exe("return { total: x }"),
		"r.prose.md": "---\nname: r\nkind: responsibility\n---\n\n### Requires\n\n- `x` (integer): a number\n\n" + maintains +
			exe("return { total: x }"),
		"caller.prose.md": fn("caller", "", "out", exe("let t = call f\n  x: -2\n  on_fail use 0\nreturn { out: t }")),
	})
	for _, name := range []string{"f", "r"} {
		_, err := runContract(t, filepath.Join(dir, name+".prose.md"), nil, map[string]string{"x": "-5"}, nil)
		want := name + " returns -5 for total, but its postcondition at " + filepath.Join(dir, name+".prose.md") + ":"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "does not hold: `total` is at least 0") {
			t.Errorf("%s: err %v, want %q", name, err, want)
		}
		v, err := runContract(t, filepath.Join(dir, name+".prose.md"), nil, map[string]string{"x": "5"}, nil)
		if err != nil || asJSON(t, v) != `{"total":5}` {
			t.Errorf("%s holding its postcondition: %v %v", name, v, err)
		}
	}
	v, err := runContract(t, filepath.Join(dir, "caller.prose.md"), nil, nil, nil)
	if err != nil || asJSON(t, v) != `{"out":0}` {
		t.Errorf("a callee failing its postcondition: %v %v; want its fallback", v, err)
	}
}

// A one-output callee answering an object whose key misspells its output
// ({"txt": ...} for text) fails the call instead of becoming the output
// whole; an object of other keys is the output's value, as before.
func TestOneOutputNearMissIsRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"u.prose.md": fn("u", "topic", "summary", exe("let r = call writer\n  topic: topic\nreturn { summary: r }")) +
			"## writer\n\n### Parameters\n\n- `topic`: the subject\n\n### Returns\n\n- `text`: the text\n\n",
	})
	_, err := runContract(t, filepath.Join(dir, "u.prose.md"), []string{`writer=exec:echo '{"txt": "hi"}'`}, map[string]string{"topic": "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), `writer returns an object with the key "txt" and not its output "text": answer {"text": VALUE}, or the value itself`) {
		t.Errorf("near miss: %v", err)
	}
	v, err := runContract(t, filepath.Join(dir, "u.prose.md"), []string{`writer=exec:echo '{"title": "hi"}'`}, map[string]string{"topic": "x"}, nil)
	if err != nil || asJSON(t, v) != `{"summary":{"title":"hi"}}` {
		t.Errorf("an object as the output: %v %v", v, err)
	}
}
