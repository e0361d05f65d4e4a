package spec

import (
	"strings"
	"testing"
)

// TestInputCommentCaseChangesLength: a description whose lower case has
// another byte length (Ⱥ 2 bytes, ⱥ 3; İ 2, i̇ 3) must neither crash the
// loader nor hide the "(optional ...)" flags after it.
func TestInputCommentCaseChangesLength(t *testing.T) {
	for _, tc := range []struct {
		comment, desc string
		optional      bool
		def           string
	}{
		{"ȺȺȺȺȺȺȺȺȺȺȺȺ(optional)", "ȺȺȺȺȺȺȺȺȺȺȺȺ", true, ""},
		{"İzmir (optional, default 3)", "İzmir", true, "3"},
		{"\x83\xad (OPTIONAL, default 2) cut", "\x83\xad cut", true, "2"},
		{"(optional, default 4) — how many", "how many", true, "4"},
		{"required text", "required text", false, ""},
	} {
		var in Input
		in.comment(tc.comment)
		if in.Optional != tc.optional || in.DefaultRaw != tc.def || in.Description != tc.desc {
			t.Errorf("comment(%q): optional=%v default=%q desc=%q; want %v %q %q",
				tc.comment, in.Optional, in.DefaultRaw, in.Description, tc.optional, tc.def, tc.desc)
		}
	}
}

// TestInputCommentCaseChangesLengthLoad loads a whole spec with such a
// comment under Requires: no panic, and the input stays optional.
func TestInputCommentCaseChangesLengthLoad(t *testing.T) {
	src := "---\nname: f\nkind: pattern\n---\n\n### Requires\n\n- Pattern instance receives:\n" +
		"    n: integer -- ȺȺȺȺȺȺȺȺȺȺȺȺ(optional)\n" +
		"    m: integer -- İzmir (optional, default 3)\n"
	s, _ := Parse("f.prose.md", []byte(src))
	if len(s.Inputs) != 2 {
		t.Fatalf("inputs: %+v", s.Inputs)
	}
	for _, in := range s.Inputs {
		if !in.Optional {
			t.Errorf("input %s is required; its comment says optional", in.Name)
		}
	}
}

// FuzzInputComment checks that any comment is read without panicking and
// that "(optional)" after any text without brackets keeps the input
// optional.
func FuzzInputComment(f *testing.F) {
	for _, s := range []string{"ȺȺȺȺȺȺȺȺȺȺȺȺ", "İzmir", "\x83\xad", "plain words", "K Ω ſ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prefix string) {
		var in Input
		in.comment(prefix)
		if strings.ContainsAny(prefix, "()[]{}\"") {
			return
		}
		var opt Input
		opt.comment(prefix + " (optional, default 3)")
		if !opt.Optional || opt.DefaultRaw != "3" {
			t.Fatalf("comment(%q + \" (optional, default 3)\"): optional=%v default=%q", prefix, opt.Optional, opt.DefaultRaw)
		}
	})
}

// indexFoldNaive is indexFold without its first-byte check.
func indexFoldNaive(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// FuzzFoldSearch checks indexFold against the rune-wise search it
// shortens, and containsLower against lower-casing the whole line, on
// lines with characters that fold to ASCII letters (K, ſ, İ).
func FuzzFoldSearch(f *testing.F) {
	for _, s := range []string{"Pattern instance RECEIVES:", "RECEİVES:", "(OPTİONAL)", "ſ(Optional) K", "\x83receives:", "(optional"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sub := range []string{"(optional", "receives:", "k", "s"} {
			if got, want := indexFold(s, sub), indexFoldNaive(s, sub); got != want {
				t.Fatalf("indexFold(%q, %q) = %d, want %d", s, sub, got, want)
			}
			if got, want := containsLower(s, sub), strings.Contains(strings.ToLower(s), sub); got != want {
				t.Fatalf("containsLower(%q, %q) = %v, want %v", s, sub, got, want)
			}
		}
	})
}
