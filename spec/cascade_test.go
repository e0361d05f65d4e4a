package spec

import (
	"testing"
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
