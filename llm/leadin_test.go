package llm

import (
	"strings"
	"testing"
)

// TestLeadInFenceCaseChangesLength: text before the fence whose lower case
// has another byte length (Ⱥ 2 bytes, ⱥ 3; an invalid byte becomes a 3-byte
// U+FFFD) must not shift where the fence is read.
func TestLeadInFenceCaseChangesLength(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"\x83\xad```json\n```", "", true},
		{strings.Repeat("Ⱥ", 10) + "```json\n```", "", true},
		{strings.Repeat("Ⱥ", 10) + "```json\n{\"a\": 1}\n```", `{"a": 1}`, true},
		{"İİİ here:\n```JSON\n[1]\n```", "[1]", true},
		{"Ω K ```Json\n{}\n``` done", "{}", true},
		{"no fence at all", "", false},
		{"```json\nunclosed", "", false},
	} {
		got, ok := leadInFence(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("leadInFence(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzLeadInFence checks that any reply is read without panicking and that
// a body found is a part of the reply between its two fences.
func FuzzLeadInFence(f *testing.F) {
	for _, s := range []string{"```json\n{}\n```", "Sure:\n```json\n[1]\n```\nok", "\x83\xad```json\n```",
		"ȺȺȺ```JSON\n{}\n```", "İ```json\n```", "```json```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body, ok := leadInFence(s)
		if !ok {
			return
		}
		if !strings.Contains(s, body) {
			t.Fatalf("leadInFence(%q) = %q, not a part of the reply", s, body)
		}
		if strings.Contains(body, "```") {
			t.Fatalf("leadInFence(%q) = %q holds a fence", s, body)
		}
	})
}
