package bind

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/spec"

	"github.com/proselang/prose/diag"
)

func (b *binder) slot(name string) *spec.Slot {
	for _, s := range b.sp.Slots {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// suggest returns ` (did you mean "x"?)` for the candidate closest to name,
// or lists the candidates when none is close; "" when there are none.
func (b *binder) suggest(name string, candidates []string) string {
	if best := Closest(name, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", b.path(best))
	}
	if len(candidates) == 0 {
		return " (the spec declares none)"
	}
	return fmt.Sprintf(" (known: %s)", strings.Join(candidates, ", "))
}

// Closest is the candidate within a small edit distance of name (about a
// third of its length), ignoring case, hyphens and underscores; "" if none.
func Closest(name string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	n := norm(name)
	best, bestD := "", 0
	for _, c := range candidates {
		d := diag.EditDistance(n, norm(c))
		limit := max(1, len([]rune(name))/3)
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}
