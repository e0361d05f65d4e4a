package graph

import (
	"strings"
	"unicode"
)

// Reading an item's sentence (decided).
//
// A Requires item is read whole, not by its first name. Its references
// are the texts in backticks or **bold** (a bold span around backticks
// is one reference), the item's name first. A reference is negated when
// a word of exclusion (never, not, no, except, excluding, without) stands
// before it in the same clause; a clause ends at `.`, `;`, `:`, `(`, `)`,
// a dash (— – --) or the word "but"; "not only", "not just" do not
// exclude. "only" restricts: it keeps what it
// names and adds nothing, so a facet named with "only" is read alone. A
// negated reference removes what it names (a producer or a part); a word
// of exclusion is never read as a reference.

// ref is one reference of an item: its text and where it starts in the
// item's sentence (-1 for a name that is not in the sentence, such as a
// facet-need heading's).
type ref struct {
	text    string
	at, end int
	negated bool
	// words are the words around the reference, as written: what an
	// --explain shows.
	words string
	// owner is the node the sentence ties a part to (wire.go), or nil.
	owner *Node
}

// exclusion words (lower case).
var exclusions = map[string]bool{"never": true, "not": true, "no": true, "except": true, "excluding": true, "without": true, "nor": true}

// inclusive are the words after which a word of exclusion includes
// ("not only", "not just").
var inclusive = map[string]bool{"only": true, "just": true, "merely": true, "simply": true}

// refs reads the references of an item, in order.
func refs(it *Item) []ref {
	var out []ref
	text := it.Text
	if it.Name != "" && !strings.Contains(text, "`"+it.Name+"`") && !strings.Contains(text, "**"+it.Name+"**") {
		out = append(out, ref{text: it.Name, at: -1, words: "#### " + it.Name})
	}
	for _, sp := range spans(text) {
		r := ref{text: sp.text, at: sp.start, end: sp.end, words: context(text, sp.start, sp.end)}
		r.negated = negated(text[:sp.start])
		if r.negated {
			r.words = fromExclusion(text, sp.start, sp.end)
		}
		out = append(out, r)
	}
	return out
}

type span struct {
	text       string
	start, end int
}

// spans lists the backticked and bolded texts of s, each once: a bold
// span holding backticks gives the backticked texts.
func spans(s string) []span {
	var out []span
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "**"):
			j := strings.Index(s[i+2:], "**")
			if j < 0 {
				i += 2
				continue
			}
			inner := s[i+2 : i+2+j]
			if strings.Contains(inner, "`") {
				for _, sp := range spans(inner) {
					out = append(out, span{sp.text, i + 2 + sp.start, i + 2 + sp.end})
				}
			} else if t := strings.TrimSpace(inner); t != "" {
				out = append(out, span{t, i, i + 4 + j})
			}
			i += 4 + j
		case s[i] == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return out
			}
			if t := strings.TrimSpace(s[i+1 : i+1+j]); t != "" {
				out = append(out, span{t, i, i + 2 + j})
			}
			i += 2 + j
		default:
			i++
		}
	}
	return out
}

// negated reports whether the clause that ends where a reference starts
// holds a word of exclusion that no "but" follows.
func negated(before string) bool {
	start := 0
	for _, stop := range []string{".", ";", ":", "(", ")", "—", "–", "--"} {
		if i := strings.LastIndex(before, stop); i >= 0 && i+len(stop) > start {
			start = i + len(stop)
		}
	}
	words := strings.FieldsFunc(strings.ToLower(before[start:]), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	})
	neg := false
	for i, w := range words {
		switch {
		case w == "but":
			neg = false
		case i+1 < len(words) && inclusive[words[i+1]]:
			// "not just `X`", "not only `X`" include X.
		case exclusions[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t"):
			neg = true
		}
	}
	return neg
}

// fromExclusion is the text from the last word of exclusion before
// start to end: "never to `history`".
func fromExclusion(s string, start, end int) string {
	low := asciiLower(s[:start])
	best := -1
	for w := range exclusions {
		for i := strings.LastIndex(low, w); i >= 0; i = strings.LastIndex(low[:i], w) {
			before := i == 0 || !unicode.IsLetter(rune(low[i-1]))
			after := i+len(w) == len(low) || !unicode.IsLetter(rune(low[i+len(w)]))
			if before && after {
				best = max(best, i)
				break
			}
		}
	}
	if best < 0 || start-best > 60 {
		return context(s, start, end)
	}
	return strings.TrimSpace(s[best:end])
}

// context is the clause around s[start:end], trimmed to a few words on
// each side: the words an --explain quotes.
func context(s string, start, end int) string {
	from := start
	for n := 0; from > 0 && n < 2; {
		from--
		if s[from] == ' ' {
			n++
		}
		if strings.ContainsRune(".;()", rune(s[from])) {
			from++
			break
		}
	}
	to := end
	for n := 0; to < len(s) && n < 2; to++ {
		if s[to] == ' ' {
			n++
		}
		if strings.ContainsRune(".;()", rune(s[to])) {
			break
		}
	}
	return strings.TrimSpace(s[from:to])
}

// trimPossessive drops a trailing 's from a reference (`renewal-risk's`).
func trimPossessive(s string) string {
	for _, suf := range []string{"'s", "’s"} {
		if t, ok := strings.CutSuffix(s, suf); ok {
			return t
		}
	}
	return s
}

// Family is the key-less stem of a facet family (`eligible:<login>`
// gives "eligible:"), and whether f is a family.
func Family(f string) (stem string, ok bool) {
	i := strings.IndexByte(f, '<')
	if i <= 0 || !strings.HasSuffix(f, ">") || strings.IndexByte(f[i+1:], '<') >= 0 {
		return "", false
	}
	return f[:i], true
}
