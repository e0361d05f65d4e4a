package std

import (
	"path"
	"strings"
)

// suggest returns the library path closest to p, written the way p is
// (short "std/ratchet" or full "std/patterns/ratchet.prose.md"), or ""
// when no pattern name is within a small edit distance of p's base name.
func suggest(p string, names []string) string {
	base := strings.TrimSuffix(path.Base(p), ".prose.md")
	best, bestDist := "", 3
	for _, n := range names {
		if d := editDistance(base, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	if strings.Contains(p, "patterns/") || strings.HasSuffix(p, ".prose.md") {
		return "std/patterns/" + best + ".prose.md"
	}
	return "std/" + best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
