package spec

import (
	"strings"
	"testing"
)

// Types as people write them: the usual other spellings mean the project's
// type wherever a type is declared, and the loader stores the canonical
// name; a word close to a type is an error naming it, never an item
// dropped or an input left untyped; a word far from every type is prose.
func TestTypeNamesAsWritten(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n" +
		"- `commits` (list): the commits\n" +
		"- `limit` (int, default: 5): at most\n" +
		"- `flags` (bool[]): switches\n" +
		"- `ratio` (float | null): a share\n" +
		"- `meta` (dict, optional): extra\n" +
		"- `owner` (atomic): who, read as prose\n" +
		"\n### Returns\n\n" +
		"- `count` (int): how many\n" +
		"- `names` (str[]): who\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if len(diags) != 0 {
		t.Fatalf("findings:\n%s", diags)
	}
	want := map[string]string{"commits": "any[]", "limit": "integer", "flags": "boolean[]", "ratio": "number | null", "meta": "object", "owner": ""}
	for _, in := range s.Inputs {
		if w, ok := want[in.Name]; !ok || in.Type != w {
			t.Errorf("input %s typed %q, want %q", in.Name, in.Type, w)
		}
		delete(want, in.Name)
	}
	if len(want) > 0 {
		t.Errorf("inputs missing: %v", want)
	}
	outs := map[string]string{}
	for _, o := range s.Outputs {
		outs[o.Name] = o.Type
	}
	if outs["count"] != "integer" || outs["names"] != "string[]" || len(outs) != 2 {
		t.Errorf("outputs %v, want count integer and names string[]", outs)
	}

	bad := "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- `n` (integr): how many\n\n### Returns\n\n- `ok` (boolen): done\n"
	s, diags = Parse("f.prose.md", []byte(bad))
	got := diags.String()
	for _, w := range []string{
		`f.prose.md:10:8: error: input "n": unknown type "integr"; did you mean integer? [spec/input-syntax]`,
		`f.prose.md:14:9: error: output "ok": unknown type "boolen"; did you mean boolean? [spec/output-syntax]`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s in:\n%s", w, got)
		}
	}
	if len(s.Inputs) != 1 || len(s.Outputs) != 1 {
		t.Errorf("a mistyped item dropped: %d inputs, %d outputs", len(s.Inputs), len(s.Outputs))
	}
}

// An untyped default takes the type it is written as, so a value of
// another type is refused before a run; a default stated in a
// description in upstream's forms is read, and makes the input optional.
func TestDefaultsInferAndRead(t *testing.T) {
	src := "---\nname: p\nkind: pattern\nversion: 0.15.0\n---\n\n# P\n\n### Slots\n\n- `worker`\n\n### Config\n\n" +
		"- `max_rounds`: 3\n" +
		"- `deadline`: 2s\n" +
		"- `strict`: true — whether to insist\n" +
		"- `label`: \"A\"\n" +
		"- `threshold`: 0.8\n" +
		"- `style`: plain words, no default\n" +
		"- `passes`: integer, default `2`\n" +
		"\n### Delegation\n\n```prose\nreturn [max_rounds, deadline, strict, label, threshold, style, passes]\n```\n"
	s, diags := Parse("p.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("findings:\n%s", diags)
	}
	want := map[string]string{"max_rounds": "integer 3", "deadline": "duration 2s", "strict": "boolean true", "label": "string A", "threshold": "number 0.8", "style": " <nil>", "passes": "integer 2"}
	for _, c := range s.Config {
		got := c.Type + " " + jsonish(c.Default)
		if got != want[c.Name] {
			t.Errorf("config %s: %q, want %q", c.Name, got, want[c.Name])
		}
	}

	fn := "---\nname: f\nkind: function\nversion: 0.15.0\n---\n\n# F\n\n### Parameters\n\n" +
		"- `interactive`: whether to ask first. Defaults to `true` for a direct\n  run; wrappers may pass `false`.\n" +
		"- `mode`: how to write, default: fast\n" +
		"- `rounds`: how many passes (default 3)\n" +
		"- `wait`: how long; default is 30s\n" +
		"- `tone`: by default the model decides\n" +
		"- `cap`: 10\n" +
		"- `owner`: who; default: none\n" +
		"\n### Returns\n\n- `text`: the text\n"
	s, diags = Parse("f.prose.md", []byte(fn))
	if diags.HasErrors() {
		t.Fatalf("findings:\n%s", diags)
	}
	wantIn := map[string]string{
		"interactive": "boolean true optional", "mode": " fast optional", "rounds": "integer 3 optional",
		"wait": "duration 30s optional", "tone": " <nil> required", "cap": "integer 10 optional", "owner": " <nil> required",
	}
	for _, in := range s.Inputs {
		opt := "required"
		if in.Optional {
			opt = "optional"
		}
		if got := in.Type + " " + jsonish(in.Default) + " " + opt; got != wantIn[in.Name] {
			t.Errorf("input %s: %q, want %q", in.Name, got, wantIn[in.Name])
		}
	}
}

func jsonish(v any) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case string:
		return v
	}
	return strings.TrimSpace(jsonText(v))
}

// A 0.15 pattern written upstream's way: contract items under ### Requires
// are its inputs (typed by a default they state, or by `TYPE -- text`),
// and the text of a slot item is its contract (what a model or an MCP
// host filling the slot is told).
func TestPattern015Items(t *testing.T) {
	src := "---\nname: dr\nkind: pattern\nversion: 0.15.0\n---\n\n# DR\n\nDrafts.\n\n### Requires\n\n" +
		"- `topic`: what to write about\n" +
		"- `max_rounds`: how many rounds, default 3\n" +
		"- `audience`: string -- who reads it\n" +
		"\n### Slots\n\n" +
		"- `writer` (primary): returns `{draft: string}`\n" +
		"- `reviewer`: returns `{accepted: boolean, notes: string}`\n" +
		"- `source`: requires the topic\n" +
		"\n### Delegation\n\n```prose\nlet d = call writer\n  topic: topic\n  audience: audience\nrepeat max_rounds:\n  let r = call reviewer\n    draft: d.draft\n  if r.accepted:\n    return d\nreturn call source\n  topic: topic\n```\n"
	s, diags := Parse("dr.prose.md", []byte(src))
	if d := CheckProgram(s, diags); len(d)+len(diags) != 0 {
		t.Fatalf("findings:\n%s%s", diags, d)
	}
	got := map[string]string{}
	for _, in := range s.Inputs {
		got[in.Name] = in.Type + " " + jsonish(in.Default) + " " + in.Description
	}
	want := map[string]string{"topic": " <nil> what to write about", "max_rounds": "integer 3 how many rounds, default 3", "audience": "string <nil> who reads it"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("input %s: %q, want %q", k, got[k], w)
		}
	}
	slots := map[string]*Slot{}
	for _, sl := range s.Slots {
		slots[sl.Name] = sl
	}
	if w := slots["writer"]; w == nil || !w.Primary || w.Ensures != "returns `{draft: string}`" {
		t.Errorf("writer: %+v", w)
	}
	if r := slots["reviewer"]; r == nil || r.Ensures != "returns `{accepted: boolean, notes: string}`" {
		t.Errorf("reviewer: %+v", r)
	}
	if r := slots["source"]; r == nil || r.Requires != "the topic" || r.Ensures != "" {
		t.Errorf("source: %+v", r)
	}
}

// List and map types written as other languages write them are read, and
// an output whose parenthesis is no type is kept, its text its
// description.
func TestGenericAndProseParens(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- `a` (list[str]): names\n- `b` (Map<string, int>): counts\n\n### Returns\n\n- `summary` (markdown): the text\n- `ids` (List<int>): the ids\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	for _, in := range s.Inputs {
		got[in.Name] = in.Type
	}
	for _, o := range s.Outputs {
		got[o.Name] = o.Type + " " + o.Description
	}
	want := map[string]string{"a": "string[]", "b": "object", "summary": " (markdown): the text", "ids": "integer[] the ids"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
}
