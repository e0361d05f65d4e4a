package bind

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/spec"

	"github.com/proselang/prose/internal/didyoumean"
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
	return didyoumean.Matcher{Fold: didyoumean.Loose}.Closest(name, candidates)
}
