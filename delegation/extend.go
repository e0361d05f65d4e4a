package delegation

// Extends reports, in constant time, whether l's elements begin with
// prev's because they are the same elements in memory: l and prev are
// frozen and share their elements' array from its start (as a frozen copy
// that extends the previous frozen copy of the same list does, see
// Freeze). False says nothing about their contents: compare the elements
// to know. Callers that remember the last list they looked at use it to
// skip the unchanged prefix of the next.
func (l *List) Extends(prev *List) bool {
	if l == nil || prev == nil || l.fz == nil || prev.fz == nil || len(prev.elems) > len(l.elems) {
		return false
	}
	return len(prev.elems) == 0 || &prev.elems[0] == &l.elems[0]
}

// ElemsFrom returns a copy of the elements from index from on (none when
// from is past the end): the new elements of a list that grew.
func (l *List) ElemsFrom(from int) []Value {
	if l.fz == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	if from < 0 {
		from = 0
	}
	if from >= len(l.elems) {
		return nil
	}
	return append([]Value(nil), l.elems[from:]...)
}
