package delegation

// Extends reports, in constant time, whether l's elements begin with
// prev's because they are the same elements in memory: l and prev share
// their elements' array from its start (as a frozen copy that extends the
// previous frozen copy of the same list does, see Freeze) and neither
// changed since it was made. False says nothing about their contents:
// compare the elements to know. Callers that remember the last list they
// looked at use it to skip the unchanged prefix of the next.
func (l *List) Extends(prev *List) bool {
	if l == nil || prev == nil {
		return false
	}
	prev.mu.Lock()
	pe, pv := prev.elems, prev.ver
	prev.mu.Unlock()
	l.mu.Lock()
	le, lv := l.elems, l.ver
	l.mu.Unlock()
	if pv != 0 || lv != 0 || len(pe) > len(le) {
		return false
	}
	return len(pe) == 0 || &pe[0] == &le[0]
}

// ElemsFrom returns a copy of the elements from index from on (none when
// from is past the end): the new elements of a list that grew.
func (l *List) ElemsFrom(from int) []Value {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from < 0 {
		from = 0
	}
	if from >= len(l.elems) {
		return nil
	}
	return append([]Value(nil), l.elems[from:]...)
}
