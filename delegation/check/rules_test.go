package check

import (
	"testing"

	"github.com/proselang/prose/diag"
)

// closest skips the candidates whose length alone puts them too far: it
// must choose as if it had measured every one.
func TestClosestAsIfMeasuringAll(t *testing.T) {
	measured := func(name string, candidates []string) string {
		limit := max(len(name)/3, 1)
		best, bestD := "", limit+1
		for _, cand := range candidates {
			if cand == name {
				continue
			}
			d := diag.EditDistance(name, cand)
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
			if got, want := closest(name, cands), measured(name, cands); got != want {
				t.Errorf("closest(%q, %q) = %q, want %q", name, cands, got, want)
			}
		}
	}
}
