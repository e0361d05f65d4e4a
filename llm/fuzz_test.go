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
		"<think>a</think>{\"holds\": true}", "x</think>y", "<think>", "Here:\n```json\n{}\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h1, r1, ok1 := ParseVerdict(s)
		h2, r2, ok2 := ParseVerdict(s)
		if h1 != h2 || r1 != r2 || ok1 != ok2 {
			t.Fatalf("ParseVerdict(%q) is not stable", s)
		}
		if _, err := delegation.ToJSON(ParseReply(s)); err != nil {
			t.Fatalf("ParseReply(%q) does not encode: %v", s, err)
		}
	})
}
