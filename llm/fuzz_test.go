package llm

import (
	"testing"

	"github.com/proselang/prose/delegation"
)

// FuzzParse checks that any model reply parses without panicking, that a
// verdict read from a reply is stable, and that ParseReply gives a value
// that encodes as JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"reasoning": "x", "holds": true}`, "```json\n{\"holds\": false}\n```",
		`{"a": {"holds": "yes"}}`, "no", "{{{", `"text"`, "```\n[1, 2]\n```", "\xff\xfe",
		"<think>a</think>{\"holds\": true}", "x</think>y", "<think>", "Here:\n```json\n{}\n```",
		"Sure! Here is my answer: {\"verdict\": \"accept\"}", "```python\nprint(1)\n```", `{"a": "}"} ok`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h1, r1, ok1 := ParseVerdict(s)
		h2, r2, ok2 := ParseVerdict(s)
		if h1 != h2 || r1 != r2 || ok1 != ok2 {
			t.Fatalf("ParseVerdict(%q) is not stable", s)
		}
		v := ParseReply(s)
		enc, err := delegation.ToJSON(v)
		if err != nil {
			t.Fatalf("ParseReply(%q) does not encode: %v", s, err)
		}
		// A structured value's own JSON is read by ParseReply as JSON is
		// read anywhere (FromJSON; -0.0 prints as -0, which reads back
		// as the integer 0 everywhere alike).
		if _, isText := v.(string); !isText && v != nil {
			again, _ := delegation.ToJSON(ParseReply(string(enc)))
			direct, err := delegation.FromJSON(enc)
			want, _ := delegation.ToJSON(direct)
			if err != nil || string(again) != string(want) {
				t.Fatalf("ParseReply(%q) = %s, but its JSON reads back as %s, not %s (%v)", s, enc, again, want, err)
			}
		}
		// A JSON object keeps its value behind a short lead-in.
		if o, err := delegation.FromJSON([]byte(s)); err == nil {
			if _, isObj := o.(*delegation.Object); isObj {
				want, _ := delegation.ToJSON(o)
				if got, _ := delegation.ToJSON(ParseReply("Sure! Here is my answer: " + s)); string(got) != string(want) {
					t.Fatalf("the object %q behind a lead-in reads as %s, want %s", s, got, want)
				}
			}
		}
	})
}
