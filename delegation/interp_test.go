package delegation

import (
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
)

// A string literal interpolates {name} and {a.b} with their text forms,
// as + joins them; other braces, JSON-looking text included, are text,
// and {{name} writes {name}.
func TestStringInterpolation(t *testing.T) {
	got := mustRun(t, `
let topic = "tides"
let r = { score: 7, tags: ["a"], empty: null }
let s = "About {topic}: {r.score} {r.tags} {r.empty}"
let t = """multi {topic}
line {{topic} {"k": 1} { topic } {}"""
let u = "{\"verdict\": \"ok\", \"n\": {n}}"
return [s, t, u]
`, map[string]Value{"n": int64(3)}, nil)
	want := `["About tides: 7 [\"a\"] null","multi tides\nline {topic} {\"k\": 1} { topic } {}","{\"verdict\": \"ok\", \"n\": 3}"]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	e := runErr(t, "let s = \"x {nope} y\"\nreturn s\n", nil, nil)
	wantErr(t, e, "test.md:1:13: undefined name 'nope'")
}

// A brace reading a member an object lacks, or a member of null, is an
// error at the member, not the text "null"; a key present with null is.
func TestInterpolatedMissingMemberIsAnError(t *testing.T) {
	e := runErr(t, "let r = { score: 7 }\nreturn \"got {r.scores}\"\n", nil, nil)
	wantErr(t, e, `test.md:2:16: {r.scores}: r has no key "scores" (its keys: score), so the text would read "null"`)
	e = runErr(t, "let r = { a: null }\nreturn \"got {r.a.b}\"\n", nil, nil)
	wantErr(t, e, `test.md:2:18: {r.a.b}: r.a is null`)
	e = runErr(t, "let r = {}\nreturn \"got {r.a.b}\"\n", nil, nil)
	wantErr(t, e, `test.md:2:16: {r.a.b}: r has no key "a" (it is empty)`)
	got := mustRun(t, "let r = { a: null, n: 2 }\nreturn \"{r.a} {r.n} {r.length}\"\n", nil, nil)
	if got != `"null 2 2"` {
		t.Errorf("got %s", got)
	}
}

// \{ and \} are braces that are text, beside an interpolation or not,
// and a triple-quoted string takes the same escapes as a quoted one
// (ProseScript's): """a\nb""" holds a line break, not a backslash.
func TestStringEscapes(t *testing.T) {
	got := mustRun(t, `
let topic = "tides"
let s = "\{topic\} {topic} \{{topic}\} {{topic}"
let u = """one\ntwo \{topic\} {topic} \\{topic}"""
return [s, u]
`, nil, nil)
	want := `["{topic} tides {tides} {topic}","one\ntwo {topic} tides \\tides"]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// The checker reports an undefined name in braces at its brace, and a
// name used only in braces is used.
func TestStringInterpolationChecks(t *testing.T) {
	prog, errs := syntax.ParseString("t.md", "let s = \"About {topic} and {nope} ({topc.x})\"\nreturn { s: s }\n")
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	d := &check.Decls{Inputs: []check.Name{{Name: "topic"}}}
	var msgs []string
	for _, x := range check.Check(prog, d) {
		msgs = append(msgs, x.Error())
	}
	want := []string{
		"t.md:1:28: error: undefined name 'nope' [check/undefined-name]",
		"t.md:1:36: error: undefined name 'topc'; did you mean 'topic'? [check/undefined-name]",
	}
	if len(msgs) != len(want) || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Errorf("got %q\nwant %q", msgs, want)
	}
}

// Braces with spaces around a bound name are text, which the checker
// warns of at the brace; around an unbound word, escaped, or without
// spaces they draw nothing.
func TestSpacedBraceWarns(t *testing.T) {
	prog, errs := syntax.ParseString("t.md", "let s = \"About { topic } {topic.x } {  other } \\{ topic \\} {topic}\"\nreturn { s: s }\n")
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	d := &check.Decls{Inputs: []check.Name{{Name: "topic"}}}
	var msgs []string
	for _, x := range check.Check(prog, d) {
		msgs = append(msgs, x.Error())
	}
	want := []string{
		"t.md:1:16: warning: { topic } is text, not the value of topic: braces interpolate only a name with nothing else inside; write {topic} (or \\{ topic \\} for the text) [check/spaced-brace]",
		"t.md:1:26: warning: {topic.x } is text, not the value of topic: braces interpolate only a name with nothing else inside; write {topic.x} (or \\{ topic.x \\} for the text) [check/spaced-brace]",
	}
	if len(msgs) != len(want) || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Errorf("got %q\nwant %q", msgs, want)
	}
}
