package llm

import (
	"errors"
	"testing"

	"github.com/proselang/prose/delegation"
)

// FuzzParse checks that any model reply parses without panicking, that a
// verdict read from a reply is stable, and that ParseReply gives a value
// that encodes as JSON or a *ReplyError. Of a JSON object it checks the
// reading the package doc of reply.go promises: behind a short lead-in or
// before a short remark it is itself; cut off anywhere, or followed by a
// second object, it is an error, never text or its first part.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"reasoning": "x", "holds": true}`, "```json\n{\"holds\": false}\n```",
		`{"a": {"holds": "yes"}}`, "no", "{{{", `"text"`, "```\n[1, 2]\n```", "\xff\xfe",
		"<think>a</think>{\"holds\": true}", "x</think>y", "<think>", "Here:\n```json\n{}\n```",
		"Sure! Here is my answer: {\"verdict\": \"accept\"}", "```python\nprint(1)\n```", `{"a": "}"} ok`,
		`{"a": 1}{"b": 2}`, `{"a": [1, 2`, "[1] Smith", "{\"a\": 1}\n\nHope this helps!", "Compare {\"a\": 1} with {\"a\": 2}."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h1, r1, ok1 := ParseVerdict(s)
		h2, r2, ok2 := ParseVerdict(s)
		if h1 != h2 || r1 != r2 || ok1 != ok2 {
			t.Fatalf("ParseVerdict(%q) is not stable", s)
		}
		v, err := ParseReply(s)
		if err != nil {
			var re *ReplyError
			if !errors.As(err, &re) || v != nil {
				t.Fatalf("ParseReply(%q) = %v, %v: want a *ReplyError and no value", s, v, err)
			}
		}
		enc, err := delegation.ToJSON(v)
		if err != nil {
			t.Fatalf("ParseReply(%q) does not encode: %v", s, err)
		}
		// A structured value's own JSON is read by ParseReply as JSON is
		// read anywhere (FromJSON; -0.0 prints as -0, which reads back
		// as the integer 0 everywhere alike).
		if _, isText := v.(string); !isText && v != nil {
			back, _ := ParseReply(string(enc))
			again, _ := delegation.ToJSON(back)
			direct, err := delegation.FromJSON(enc)
			want, _ := delegation.ToJSON(direct)
			if err != nil || string(again) != string(want) {
				t.Fatalf("ParseReply(%q) = %s, but its JSON reads back as %s, not %s (%v)", s, enc, again, want, err)
			}
		}
		o, err := delegation.FromJSON([]byte(s))
		if _, isObj := o.(*delegation.Object); err != nil || !isObj {
			return
		}
		want, _ := delegation.ToJSON(o)
		// A JSON object keeps its value behind a short lead-in and before
		// a short remark.
		for _, around := range [][2]string{{"Sure! Here is my answer: ", ""}, {"", "\n\nHope this helps!"}} {
			v, err := ParseReply(around[0] + s + around[1])
			if got, _ := delegation.ToJSON(v); err != nil || string(got) != string(want) {
				t.Fatalf("the object %q in %q reads as %s, %v; want %s", s, around, got, err, want)
			}
		}
		// Two objects, bare or in short chat, are an error.
		for _, two := range []string{string(want) + string(want), string(want) + "\n" + string(want), "Compare " + string(want) + " with " + string(want) + "."} {
			if len(two) > 2*maxLeadIn {
				break
			}
			if v, err := ParseReply(two); err == nil {
				t.Fatalf("two objects %q read as %v, want an error", two, v)
			}
		}
		// Cut off anywhere, the object is an error, never text.
		for _, k := range []int{1, len(want) / 2, len(want) - 1} {
			if k <= 0 || k >= len(want) {
				continue
			}
			if v, err := ParseReply(string(want[:k])); err == nil {
				t.Fatalf("the object %s cut at %d (%q) reads as %v, want an error", want, k, want[:k], v)
			}
		}
	})
}
