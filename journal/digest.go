package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/proselang/prose/delegation"
)

// Argument digests.
//
// A call's "args" is a digest of its arguments that costs work in
// proportion to what changed since the slot's previous call, not to the
// size of the arguments: a ratchet passes its whole certified progress to
// every proposal, one step longer each time. It is defined (FORMAT.md) as
// the sha256 of, for each argument in order, its name as JSON, ':', the
// hex digest of its value, and ','. The digest of a list is a chain over
// its elements: c0 = sha256("[]"), c(k) = sha256(c(k-1) || sha256(JSON of
// element k)), the digest of a list of n elements being c(n); any other
// value's digest is the sha256 of its JSON. A list that extends the one
// the same slot got under the same name before continues that list's
// chain: its old elements are recognized (the same strings, numbers,
// booleans or nulls, or the same digest: a frozen list or object is
// hashed once, delegation.Sum), not hashed again.

// argDigester remembers, per slot and argument name, the last list digested
// and the chain after each of its elements.
type argDigester struct {
	mu    sync.Mutex
	lists map[string]*chain
}

type chain struct {
	list  *delegation.List   // the list digested
	vals  []delegation.Value // its elements then
	esums [][32]byte         // esums[k]: the digest of element k
	sums  [][32]byte         // sums[k]: the chain after k elements (sums[0] = c0)
}

var emptyChain = sha256.Sum256([]byte("[]"))

// args is the digest of a call's arguments.
func (d *argDigester) args(slot string, args *delegation.Object) string {
	h := sha256.New()
	if args != nil {
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			h.Write([]byte(strconv.Quote(k)))
			h.Write([]byte{':'})
			var sum [32]byte
			if l, ok := v.(*delegation.List); ok {
				sum = d.list(slot+"\x00"+k, l)
			} else {
				sum = valueSum(v)
			}
			h.Write([]byte(hex.EncodeToString(sum[:])))
			h.Write([]byte{','})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func valueSum(v delegation.Value) [32]byte {
	s, err := delegation.Sum(v)
	if err != nil {
		return sha256.Sum256([]byte("<" + err.Error() + ">"))
	}
	return s
}

// list is the chain digest of l, continuing the chain of the last list
// digested under key when l extends it. The work is in proportion to the
// new elements: a frozen argument list that extends the previous call's
// frozen copy in memory (delegation.List.Extends) is known to begin with
// its elements without looking at them; any other list is compared
// element by element with the elements remembered.
func (d *argDigester) list(key string, l *delegation.List) [32]byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lists == nil {
		d.lists = map[string]*chain{}
	}
	prev := d.lists[key]
	k := 0
	var elems []delegation.Value // l's elements from k on
	switch {
	case prev != nil && l.Extends(prev.list):
		k = len(prev.vals)
		elems = l.ElemsFrom(k)
	case prev != nil:
		all := l.Elems()
		for k < len(prev.vals) && k < len(all) {
			pv, v := prev.vals[k], all[k]
			if !sameScalar(pv, v) && !sameFrozen(pv, v) && valueSum(v) != prev.esums[k] {
				break
			}
			k++
		}
		elems = all[k:]
	default:
		elems = l.Elems()
	}
	c := &chain{list: l}
	if prev != nil {
		// prev is replaced below: c takes over its slices, so extending
		// a list costs work in proportion to the new elements.
		c.vals, c.esums, c.sums = prev.vals[:k], prev.esums[:k], prev.sums[:k+1]
	} else {
		c.sums = [][32]byte{emptyChain}
	}
	for _, v := range elems {
		e := valueSum(v)
		c.vals = append(c.vals, v)
		c.esums = append(c.esums, e)
		h := sha256.New()
		h.Write(c.sums[len(c.sums)-1][:])
		h.Write(e[:])
		var s [32]byte
		h.Sum(s[:0])
		c.sums = append(c.sums, s)
	}
	d.lists[key] = c
	return c.sums[len(c.sums)-1]
}

// sameFrozen reports whether a and b are the same frozen list or object,
// which never changes.
func sameFrozen(a, b delegation.Value) bool {
	switch a := a.(type) {
	case *delegation.List:
		return a.Frozen() && a == b
	case *delegation.Object:
		return a.Frozen() && a == b
	}
	return false
}

// sameScalar reports whether a and b are the same string, integer,
// boolean or null.
func sameScalar(a, b delegation.Value) bool {
	switch a := a.(type) {
	case string:
		s, ok := b.(string)
		return ok && a == s
	case int64:
		n, ok := b.(int64)
		return ok && a == n
	case bool:
		x, ok := b.(bool)
		return ok && a == x
	case nil:
		return b == nil
	}
	return false
}
