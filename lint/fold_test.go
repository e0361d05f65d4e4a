package lint

import (
	"strings"
	"testing"
)

// foldSection folds a heading as strings.Fields, Join and ToLower do, and
// makes the key with hyphens.
func TestFoldSection(t *testing.T) {
	for _, h := range []string{"", "Returns", "  Expects   Not ", "EXPECTS\tnot", "Ensures", "Café  Notes", "a\u00a0b", "A Very Long Heading Of Many Words Past The Buffer", "x\r\ny"} {
		checkFold(t, h)
	}
}

func FuzzFoldSection(f *testing.F) {
	f.Add("Expects Not")
	f.Add(" \tÉtat  ")
	f.Fuzz(checkFold)
}

func checkFold(t *testing.T, heading string) {
	want := strings.ToLower(strings.Join(strings.Fields(heading), " "))
	var hb, kb [8]byte
	h, k := foldSection(hb[:0], kb[:0], heading)
	if string(h) != want || string(k) != strings.ReplaceAll(want, " ", "-") {
		t.Errorf("foldSection(%q) = %q, %q; want %q", heading, h, k, want)
	}
}
