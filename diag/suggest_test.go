package diag

import "testing"

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2},
		{"advancer", "advancr", 1}, {"max_steps", "max_step", 1},
		{"kitten", "sitting", 3}, {"ratchett", "ratchet", 1},
		{"naïve", "naive", 1}, // runes, not bytes
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := EditDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, not symmetric", tc.b, tc.a, got)
		}
	}
}
