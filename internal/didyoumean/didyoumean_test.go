package didyoumean

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2},
		{"advancer", "advancr", 1}, {"max_steps", "max_step", 1},
		{"kitten", "sitting", 3}, {"ratchett", "ratchet", 1},
		{"naïve", "naive", 1},                                  // runes, not bytes
		{"hihg", "high", 1}, {"ab", "ba", 1}, {"ca", "abc", 3}, // a swap is one edit, and a swapped pair is not edited again
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, not symmetric", tc.b, tc.a, got)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []string
		limit int
		want  string
	}{
		{"advancr", []string{"critic", "advancer", "judge"}, 2, "advancer"},
		{"zzz", []string{"critic", "advancer"}, 2, ""},        // none close
		{"critic", []string{"critic", "critik"}, 2, "critik"}, // never the name itself
		{"ab", []string{"ad", "ac"}, 1, "ac"},                 // a tie goes to the first alphabetically
		{"ab", []string{"ac", "ad"}, 1, "ac"},                 // whatever the order
		{"steps", []string{"step", "stepz9"}, 1, "step"},      // nearest, not first
		{"steps", []string{"stepsxyz"}, 2, ""},                // over the limit by length alone
		{"x", nil, 3, ""},
	} {
		if got := Closest(tc.name, tc.cands, tc.limit); got != tc.want {
			t.Errorf("Closest(%q, %q, %d) = %q, want %q", tc.name, tc.cands, tc.limit, got, tc.want)
		}
	}
}

func TestMatcher(t *testing.T) {
	loose := Matcher{Fold: Loose}
	if got := loose.Closest("MaxSteps", []string{"max-steps", "mode"}); got != "max-steps" {
		t.Errorf("Loose: got %q, want max-steps", got)
	}
	lower := Matcher{Fold: strings.ToLower}
	if got := lower.Closest("Goal", []string{"goal"}); got != "goal" {
		t.Errorf("a folded exact match is suggested: got %q", got)
	}
	// Third: one slip in a name of up to five runes, two from six.
	if got := (Matcher{}).Closest("judge", []string{"jxdye"}); got != "" {
		t.Errorf("two slips in five runes suggested %q", got)
	}
	// A swap of two neighbours is one slip.
	if got := (Matcher{}).Closest("hihg", []string{"high", "low"}); got != "high" {
		t.Errorf("a swap: got %q, want high", got)
	}
	if got := (Matcher{}).Closest("judge", []string{"jugde"}); got != "jugde" {
		t.Errorf("a swap in five runes: got %q", got)
	}
	if got := (Matcher{}).Closest("advancer", []string{"advnacer"}); got != "advnacer" {
		t.Errorf("two slips in eight runes: got %q", got)
	}
	byCand := Matcher{Limit: func(_, c string) int {
		if len(c) >= 7 {
			return 2
		}
		return 1
	}}
	if got := byCand.Closest("Rtrns", []string{"Runs", "Returns"}); got != "Returns" {
		t.Errorf("per-candidate limit: got %q", got)
	}
}

// Closest skips the candidates whose length alone puts them too far: it
// must choose as if it had measured every one.
func TestClosestAsIfMeasuringAll(t *testing.T) {
	measured := func(name string, candidates []string) string {
		limit := Third(name, "")
		best, bestD := "", limit+1
		for _, cand := range candidates {
			if cand == name {
				continue
			}
			d := Distance(name, cand)
			if d < bestD || (d == bestD && d <= limit && cand < best) {
				best, bestD = cand, d
			}
		}
		if bestD > limit {
			return ""
		}
		return best
	}
	words := []string{"", "a", "ab", "task", "tasks", "task_brief", "taskbrief", "brief", "critic", "critique",
		"überprüfung", "uberprufung", "prüfung", "naïve", "naive", "résumé", "resume", "x1", "x12", "material", "materials",
		"max_steps", "maxsteps", "max_step", "日本語", "日本", "reviewer", "review", "reviewers"}
	for _, name := range words {
		for i := range words {
			cands := words[i:]
			if got, want := (Matcher{}).Closest(name, cands), measured(name, cands); got != want {
				t.Errorf("Closest(%q, %q) = %q, want %q", name, cands, got, want)
			}
		}
	}
}
