package delegation

import (
	"crypto/sha256"
)

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
	if s, ok := v.(string); ok && len(s) > longSum {
		// Hashed as it is encoded, a piece at a time: the text of a
		// long string is not held whole (nor copied) to be hashed.
		h := sha256.New()
		buf := make([]byte, 0, 64<<10)
		if n, _ := WriteJSONString(h, s, buf); n > DefaultMaxValueBytes {
			return [32]byte{}, tooLarge(DefaultMaxValueBytes) // as ToJSON says
		}
		var sum [32]byte
		h.Sum(sum[:0])
		return sum, nil
	}
	bp := bufPool.Get().(*[]byte) // hashed where it is encoded: no copy
	b, err := AppendJSON((*bp)[:0], v)
	if err != nil {
		bufPool.Put(bp)
		return [32]byte{}, err
	}
	s := sha256.Sum256(b)
	if cap(b) <= 1<<20 {
		*bp = b
	}
	bufPool.Put(bp)
	if f != nil {
		f.sum.Store(&s)
	}
	return s, nil
}

// longSum is the length above which Sum hashes a string as it encodes it.
const longSum = 64 << 10

// emptyChain is the chain digest of the empty list.
var emptyChain = sha256.Sum256([]byte("[]"))

// ChainSum is the chain digest of list l (journal/FORMAT.md, a call's
// argument digest): c0 = sha256("[]"), c(k) = sha256(c(k-1) || s(k)),
// where s(k) is the Sum of element k, or, when it cannot be encoded, the
// sha256 of "<" + the error + ">". The digest of l is c(n).
//
// It is incremental: a frozen list remembers its chain digest, and a
// frozen copy that extends an earlier copy whose digest was known (a
// ratchet's progress, frozen for each call one step longer) goes on from
// it, so each element is hashed once however often the growing list is
// digested. Another list is digested from its first element.
func ChainSum(l *List) [32]byte {
	if l == nil {
		return emptyChain
	}
	f := l.fz
	if f == nil {
		c := emptyChain
		for _, e := range l.Elems() {
			c = chainStep(c, e)
		}
		return c
	}
	if s := f.chain.Load(); s != nil {
		return *s
	}
	start, c := 0, emptyChain
	if f.from != nil {
		start, c = f.fromN, *f.from
	}
	for _, e := range l.elems[start:] {
		c = chainStep(c, e)
	}
	f.chain.Store(&c)
	return c
}

// chainStep is c(k) from c(k-1) and element k.
func chainStep(prev [32]byte, e Value) [32]byte {
	s, err := Sum(e)
	if err != nil {
		s = sha256.Sum256([]byte("<" + err.Error() + ">"))
	}
	var buf [64]byte
	copy(buf[:32], prev[:])
	copy(buf[32:], s[:])
	return sha256.Sum256(buf[:])
}
