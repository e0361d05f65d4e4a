// Package didyoumean picks the name a mistyped one most likely meant: the
// measure (Distance, a Levenshtein distance in runes) and the choice
// (Closest, or a Matcher for a limit or a folding of its own) behind every
// "did you mean" of prose: names, members, flags, kinds, sections,
// library paths, nodes and facets.
//
// Decided: among candidates at the same distance the alphabetically first
// wins, so a suggestion never depends on the order candidates were
// gathered in (a map's order, a flag set's). A candidate equal to the
// name as written is never suggested.
package didyoumean

import "unicode/utf8"

// Distance is the edit distance between a and b, counted in runes: the
// Levenshtein distance with a swap of two adjacent runes counted as one
// edit (the optimal string alignment distance), since a swap is the
// commonest slip ("hihg" is one from "high", not two).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// A Matcher chooses the candidate closest to a name.
type Matcher struct {
	// Limit is the largest distance at which candidate still counts as
	// meant by name; nil means Third.
	Limit func(name, candidate string) int
	// Fold, when set, rewrites the name and each candidate before they
	// are measured (strings.ToLower to ignore case, Loose).
	Fold func(string) string
}

// Closest returns the candidate nearest to name within the limit, or ""
// when none is that close.
func (m Matcher) Closest(name string, candidates []string) string {
	limit := m.Limit
	if limit == nil {
		limit = Third
	}
	fold := func(s string) string { return s }
	if m.Fold != nil {
		fold = m.Fold
	}
	n := fold(name)
	nr := utf8.RuneCountInString(n)
	best, bestD := "", -1
	for _, c := range candidates {
		if c == name {
			continue
		}
		lim := limit(name, c)
		f := fold(c)
		// the distance is at least the difference in length, and
		// measuring allocates
		if dl := utf8.RuneCountInString(f) - nr; dl > lim || -dl > lim {
			continue
		}
		d := Distance(n, f)
		if d > lim {
			continue
		}
		if bestD < 0 || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// Closest returns the candidate within limit edits of name, nearest
// first, or "".
func Closest(name string, candidates []string, limit int) string {
	return Matcher{Limit: Within(limit)}.Closest(name, candidates)
}

// Within is a Limit of n edits whatever the names.
func Within(n int) func(name, candidate string) int {
	return func(string, string) int { return n }
}

// Third is the usual Limit: a third of the name's length, at least 1
// (one slip in a short name, two in "max_stepz").
func Third(name, _ string) int {
	return max(1, utf8.RuneCountInString(name)/3)
}

// Loose is a Fold that ignores case, hyphens and underscores: "max-steps",
// "MaxSteps" and "max_steps" are one name.
func Loose(s string) string {
	b := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r == '-' || r == '_':
		case 'A' <= r && r <= 'Z':
			b = append(b, r+'a'-'A')
		default:
			b = append(b, r)
		}
	}
	return string(b)
}
