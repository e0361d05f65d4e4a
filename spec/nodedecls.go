package spec

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// SectionLines calls fn with each line of s's sections whose Key is key
// (not its inline nodes'), in order, with the offset in the file where
// the line starts: the reading of the list sections that declare what a
// node needs of its host (### Tools, ### Skills).
func (s *Spec) SectionLines(key string, fn func(line string, at diag.Pos)) {
	for _, sec := range s.Sections {
		if sec.Key != key {
			continue
		}
		off := 0
		for _, line := range strings.SplitAfter(sec.Body, "\n") {
			fn(line, sec.BodyPos+diag.Pos(off))
			off += len(line)
		}
	}
}

// Inherited is what a render of n uses of a kind of declaration: n's own
// (declared), then those of the responsibility it is an inline node of
// (a responsibility's declarations apply to the functions it calls; a
// node's add to them), each key once.
func Inherited[T any](n *Spec, declared func(*Spec) []T, key func(T) string) []T {
	out := declared(n)
	if p := n.Parent; p != nil && p.Kind == KindResponsibility {
		seen := map[string]bool{}
		for _, d := range out {
			seen[key(d)] = true
		}
		for _, d := range declared(p) {
			if !seen[key(d)] {
				out = append(out, d)
			}
		}
	}
	return out
}
