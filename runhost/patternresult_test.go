package runhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

const twoOutputs = "---\nname: two\nkind: pattern\n---\n\n# Two\n\nWrites a title and a body.\n\n### Slots\n\n- `svc`\n\n" +
	"### Ensures\n\n- `title` (string): a title\n- `body`: a body\n\n### Delegation\n\n```prose\nlet r = call svc\nreturn r\n```\n"

// A pattern that returns an object is checked against the types of the
// outputs it declares where the result arrives: an output of another
// declared type is an error at the return; so is a typed output left out
// or null, as for a function (it is not declared optional); an untyped
// output left out or null is not (upstream's patterns declare outputs
// only some paths give, and state no types), unless the object has a key
// that misspells it.
func TestPatternResultAgainstItsOutputs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "two.prose.md")
	if err := os.WriteFile(path, []byte(twoOutputs), 0o644); err != nil {
		t.Fatal(err)
	}
	for answer, want := range map[string]string{
		`{"title": "t", "body": "b", "more": 1}`: "",
		`{"title": "t", "body": null}`:           "",
		`"just text"`:                            "",
		`{"title": "t"}`:                         "",
		`{"body": "b"}`:                          `two.prose.md:23:1: two returns an object without its output title, which it declares (string) at`,
		`{"title": null, "body": "b"}`:           `two returns null for its output title, which it declares (string) at`,
		`{"title": 3, "body": "b"}`:              `two.prose.md:23:1: two returns 3 for its output title, which it declares (string) at`,
		`{"title": "t", "bdy": "b"}`:             `two.prose.md:23:1: two returns an object with the key "bdy" but without its output body, declared at`,
		`{"title": "t", "Body": "b"}`:            `two returns an object with the key "Body" but without its output body`,
	} {
		o := runSpec(t, path, []string{"slot:svc=exec:echo '" + answer + "'"})
		switch {
		case want == "" && o.err != nil:
			t.Errorf("%s: %v", answer, o.err)
		case want != "" && (o.err == nil || !strings.Contains(o.err.Error(), want)):
			got, _ := delegation.ToJSON(o.value)
			t.Errorf("%s: value %s, err %v; want %q", answer, got, o.err, want)
		}
	}
}

// A nested pattern's result is checked as it ends: a result that breaks
// its declared outputs fails that attempt, so the caller's on_fail
// applies.
func TestNestedPatternResultChecked(t *testing.T) {
	dir := t.TempDir()
	inner := filepath.Join(dir, "two.prose.md")
	outer := filepath.Join(dir, "outer.prose.md")
	src := "---\nname: outer\nkind: pattern\n---\n\n# Outer\n\nCalls two.\n\n### Slots\n\n- `inner`\n\n### Delegation\n\n```prose\n" +
		"let r = call inner\n  on_fail use \"fallback\"\nreturn r\n```\n"
	for p, s := range map[string]string{inner: twoOutputs, outer: src} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := runSpec(t, outer, []string{"slot:inner=" + inner, `slot:inner.svc=exec:echo '{"title": ["t"]}'`})
	if o.err != nil || o.value != "fallback" {
		t.Fatalf("value %v, err %v; want the fallback", o.value, o.err)
	}
	o = runSpec(t, outer, []string{"slot:inner=" + inner, `slot:inner.svc=exec:echo '{"title": "t", "body": "b"}'`})
	if got, _ := delegation.ToJSON(o.value); o.err != nil || string(got) != `{"title":"t","body":"b"}` {
		t.Fatalf("value %s, err %v", got, o.err)
	}
}
