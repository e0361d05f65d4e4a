package delegation

import "crypto/sha256"

// Sum is the sha256 of v's compact JSON text (ToJSON), the digest the
// journal keeps of values (journal/FORMAT.md), with ToJSON's error. A
// frozen list or object is hashed once: it never changes, so its sum is
// remembered and every later Sum of it (the same step object in every
// call's progress, the same frozen arguments in many records) costs
// nothing.
func Sum(v Value) ([32]byte, error) {
	f := frozenFacts(v)
	if f != nil {
		if s := f.sum.Load(); s != nil {
			return *s, nil
		}
	}
	b, err := ToJSON(v)
	if err != nil {
		return [32]byte{}, err
	}
	s := sha256.Sum256(b)
	if f != nil {
		f.sum.Store(&s)
	}
	return s, nil
}
