package spec

import (
	"strings"
	"testing"

	"github.com/proselang/prose/diag"
)

// A pattern without a Slots section gets the missing-section error alone,
// not one more error per Shape delegate that no slot matches.
func TestNoSlotsSectionIsOneFinding(t *testing.T) {
	src := "---\nname: t\nkind: pattern\n---\n\n# T\n\nOne line.\n\n### Shape\n\n" +
		"- " + bt + "delegates" + bt + ":\n  - " + bt + "a" + bt + ": does it\n  - " + bt + "b" + bt + ": checks it\n" +
		"\n### Delegation\n\n" + okCode
	s, diags := Parse("t.prose.md", []byte(src))
	checkPositions(t, s, diags)
	if len(diags) != 1 || diags[0].Code != CodeMissingSection {
		t.Errorf("got %v, want only %s", diags, CodeMissingSection)
	}
	// With a Slots section, a delegate naming no slot is still reported.
	src = minimal(okSlots, "### Shape\n\n- "+bt+"delegates"+bt+":\n  - "+bt+"a"+bt+": x\n  - "+bt+"b"+bt+": y\n", okCode)
	_, diags = Parse("t.prose.md", []byte(src))
	if len(diags) != 1 || diags[0].Code != CodeShapeUndeclared {
		t.Errorf("got %v, want only %s", diags, CodeShapeUndeclared)
	}
}

// A version that is a list or a mapping is reported and ignored; a scalar
// one (also a bare number) is kept as written.
func TestFrontMatterVersion(t *testing.T) {
	tests := []struct{ version, want, code string }{
		{"0.2.0", "0.2.0", ""},
		{"1.0", "1.0", ""},
		{"\"1.10\"", "1.10", ""},
		{"[1]", "", CodeBadVersion},
		{"{major: 1}", "", CodeBadVersion},
	}
	for _, tt := range tests {
		src := strings.Replace(minimal(okSlots, "", okCode), "kind: pattern\n", "kind: pattern\nversion: "+tt.version+"\n", 1)
		s, diags := Parse("t.prose.md", []byte(src))
		checkPositions(t, s, diags)
		var codes []string
		for _, d := range diags {
			codes = append(codes, d.Code)
			if d.Code == CodeBadVersion && (d.Line != 4 || d.Severity != diag.Warning) {
				t.Errorf("version %s: finding %s, want a warning on line 4", tt.version, d)
			}
		}
		if s.Version != tt.want || strings.Join(codes, " ") != tt.code {
			t.Errorf("version %s: got %q and %v, want %q and %q", tt.version, s.Version, codes, tt.want, tt.code)
		}
	}
}

// Malformed Config bullets of every kind never crash the loader, and a
// readable name is kept only where the bullet reads as name-then-details.
func TestNameOnlyConfig(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"`n` then words", "n"}, {"n (integer, 2): x", "n"}, {"n: x", "n"}, {"n   ", ""},
		{"Nothing to set", ""}, {"`a b` (integer)", ""}, {"`", ""}, {"(", ""}, {"", ""}, {" :", ""},
	} {
		c := nameOnlyConfig(tt.text)
		if got := ""; c != nil {
			got = c.Name
			if got != tt.want {
				t.Errorf("%q: name %q, want %q", tt.text, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("%q: no name, want %q", tt.text, tt.want)
		}
	}
}
