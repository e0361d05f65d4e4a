package std

import (
	"path"
	"strings"

	"github.com/proselang/prose/internal/didyoumean"
)

// suggest returns the library path closest to p, written the way p is
// (short "std/ratchet" or full "std/patterns/ratchet.prose.md"), or ""
// when no pattern name is within a small edit distance of p's base name.
func suggest(p string, names []string) string {
	base := strings.TrimSuffix(path.Base(p), ".prose.md")
	best := didyoumean.Closest(base, names, 2)
	if best == "" {
		return ""
	}
	if strings.Contains(p, "patterns/") || strings.HasSuffix(p, ".prose.md") {
		return "std/patterns/" + best + ".prose.md"
	}
	return "std/" + best
}
