package delegation

import (
	"sync/atomic"
	"time"
)

// Frozen values (semantics.md, rule 17b).
//
// A call's arguments are frozen: the service gets a frozen copy of them,
// as they were when the call started. A frozen list or object never
// changes (its methods that would change it panic), so it is read without
// a lock and shared by every call it is passed to, parallel calls
// included. Freezing a frozen value returns it, and a frozen value met
// inside a value being frozen ends the walk there: freezing costs nothing
// for what is frozen already, however large and however often it is
// passed. A frozen value remembers what walks over it need (facts): its
// size as measure counts it, how deeply it nests, and, once computed, its
// digest (digest.go).
//
// The language's lists and objects are shared and change in place (rule
// 15), so a list the program holds is not frozen itself: freezing it makes
// a frozen copy. The list remembers that copy (memo) and the number of its
// changes then, and freezing it again returns the same copy, without a
// walk, when neither the list nor anything inside it changed since. What
// is inside changed is told by one counter, epoch, which every change of a
// list or object that was ever frozen (so that has a memo) advances: a copy
// made at epoch E of a list whose elements are lists or objects still
// holds while the epoch is E. A list's own change advances the epoch
// without making its copy's view of its elements stale (memo.changed), so
// a growing list appended to between calls (a ratchet's progress) is
// frozen from its new elements alone, in an array its earlier copies share.

// facts are what a frozen list or object knows of itself.
type facts struct {
	size  int64 // as measure counts it (saturated at maxSize)
	reach int   // levels of nesting: 0 when empty, else 1 + its elements' deepest reach
	flat  bool  // holds no list or object
	sum   atomic.Pointer[[32]byte]
	// chain is a list's chain digest once computed (digest.go); from is
	// that of the first fromN elements, the frozen copy this one extends,
	// when it was computed before this copy was made.
	chain atomic.Pointer[[32]byte]
	from  *[32]byte
	fromN int
}

// maxSize is where the sizes of frozen values stop adding up: shared
// parts count each time, and [t, t] doubled a hundred times overflows.
const maxSize = 1 << 62

func addSize(a, b int64) int64 {
	if a+b > maxSize || a+b < 0 {
		return maxSize
	}
	return a + b
}

// memo is what a list or object that was frozen keeps of its frozen copy;
// it is guarded by the value's mutex.
type memo struct {
	ver, sets uint64 // changes, and those that are not appends, so far
	snap      Value  // *List or *Object: the last frozen copy
	snapVer   uint64 // ver when snap was made
	snapSets  uint64 // sets when snap was made
	snapEpoch uint64 // epoch up to which snap's elements are known unchanged
	// deep: an element was a mutable list or object when snap was made,
	// so whether snap still holds depends on the epoch.
	deep bool
	// spare is the array snap's elements live in (lists): a copy after
	// appends only extends it.
	spare []Value
}

// epoch counts the changes of the lists and objects that were frozen.
var epoch atomic.Uint64

// changed counts a change of the value whose memo is m (set: not an
// append). The value's own change does not make its copy's elements
// stale: when nothing else changed since, the copy's epoch follows.
func (m *memo) changed(set bool) {
	m.ver++
	if set {
		m.sets++
	}
	if e := epoch.Add(1); m.snapEpoch == e-1 {
		m.snapEpoch = e
	}
}

// current is the copy another freeze made while this one walked from
// the copy was (nil if none): one of the value at ver that still holds
// at epoch now. The value's mutex is held.
func (m *memo) current(was Value, ver, now uint64) Value {
	if m.snap == nil || m.snap == was || m.ver != ver || m.snapVer != ver || m.deep && m.snapEpoch != now {
		return nil
	}
	return m.snap
}

// freezer makes frozen copies, reusing frozen values and unchanged copies.
type freezer struct {
	stack []Value
	m     *meter // counts size as measure does; nil: not counted
	// fresh: the value frozen (at depth 0) is an object no one else
	// holds, a call's arguments just evaluated.
	fresh  bool
	visits int64 // values walked
	// copied and reused count the elements copied into new frozen lists
	// and objects, and the lists, objects and elements found frozen or
	// unchanged.
	copied, reused int64
}

// identical reports whether a and b are the same value without comparing
// deeply: the same list or object, or equal scalars.
func identical(a, b Value) (same bool) {
	switch a.(type) {
	case nil, bool, int64, float64, string, time.Duration, *List, *Object:
		return a == b
	}
	// A service of a type that == cannot compare is not identical to
	// anything but itself, which cannot be told: copy afresh.
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// frozenFacts are the facts of a frozen value (nil for a scalar or a
// mutable list or object).
func frozenFacts(v Value) *facts {
	switch x := v.(type) {
	case *List:
		return x.fz
	case *Object:
		return x.fz
	}
	return nil
}

// mutable reports whether v is a list or object that is not frozen.
func mutable(v Value) bool {
	switch x := v.(type) {
	case *List:
		return x.fz == nil
	case *Object:
		return x.fz == nil
	}
	return false
}

// reuse counts a frozen value at depth, found frozen or unchanged, as a
// walk over it would.
func (fz *freezer) reuse(f *facts, depth int) error {
	if depth+f.reach > MaxDepth {
		return ErrTooDeep
	}
	fz.reused++
	return fz.count(f.size)
}

// freeze returns v frozen, and its size as measure counts it. Values
// nested deeper than MaxDepth are an error.
func (fz *freezer) freeze(val Value, depth int) (Value, int64, error) {
	switch v := val.(type) {
	case *List:
		if v.fz != nil {
			return v, v.fz.size, fz.reuse(v.fz, depth)
		}
		return fz.list(v, depth)
	case *Object:
		if v.fz != nil {
			return v, v.fz.size, fz.reuse(v.fz, depth)
		}
		return fz.object(v, depth)
	}
	size := scalarSize(val)
	return val, size, fz.count(size)
}

// list freezes the mutable list v.
func (fz *freezer) list(v *List, depth int) (Value, int64, error) {
	v.mu.Lock()
	m := v.memo
	if m == nil {
		m = new(memo) // from now on its changes advance the epoch
		v.memo = m
	}
	now := epoch.Load()
	n, ver, sets := len(v.elems), m.ver, m.sets
	snap, _ := m.snap.(*List)
	inside := snap != nil && (!m.deep || m.snapEpoch == now) // snap's elements still hold
	if inside && m.snapVer == ver {
		v.mu.Unlock()
		return snap, snap.fz.size, fz.reuse(snap.fz, depth)
	}
	if depth > MaxDepth || depth == MaxDepth && n > 0 {
		v.mu.Unlock()
		return nil, 0, ErrTooDeep
	}
	// grown: only appended to since snap, so snap's elements are the
	// copies of its first ones. When they still hold, only the new
	// elements are looked at (fz.stack[base+i-start] is element i).
	var old []Value
	grown := snap != nil && m.snapSets == sets && len(snap.elems) <= n
	if grown {
		old = snap.elems
	}
	start, deep := 0, false
	if grown && inside {
		start, deep = len(old), m.deep
	}
	base := len(fz.stack)
	fz.stack = append(fz.stack, v.elems[start:n]...)
	v.mu.Unlock()

	size := int64(2 + n)
	reach, flat := 0, true
	if start > 0 {
		if err := fz.reuse(snap.fz, depth); err != nil {
			return nil, 0, err
		}
		size = addSize(snap.fz.size, int64(n-start))
		reach, flat = snap.fz.reach-1, snap.fz.flat // snap is not empty
		if err := fz.count(int64(n - start)); err != nil {
			return nil, 0, err
		}
	} else if err := fz.count(size); err != nil {
		return nil, 0, err
	}
	same := grown // the copies of the first len(old) elements are old's
	for i := start; i < n; i++ {
		e := fz.stack[base+i-start]
		deep = deep || mutable(e)
		c, s, err := fz.freeze(e, depth+1)
		if err != nil {
			fz.pop(base)
			return nil, 0, err
		}
		fz.stack[base+i-start] = c
		size = addSize(size, s)
		if f := frozenFacts(c); f != nil {
			reach, flat = max(reach, f.reach), false
		}
		same = same && (i >= len(old) || identical(c, old[i]))
	}
	if n > 0 {
		reach++
	}
	if same && len(old) == n {
		// Changed and changed back, or changes inside that left every
		// element's copy as it was: snap holds.
		fz.reused += int64(n)
		fz.pop(base)
		v.mu.Lock()
		if m.ver == ver {
			m.snapVer, m.snapSets, m.snapEpoch, m.deep = ver, sets, now, deep
		}
		v.mu.Unlock()
		return snap, snap.fz.size, nil
	}
	fl := &frozenList{}
	c := &fl.List
	c.fz = &fl.facts
	c.fz.size, c.fz.reach, c.fz.flat = size, reach, flat
	if same && len(old) > 0 {
		// c begins with snap's elements: its chain digest goes on from
		// snap's, when that is known.
		if s := snap.fz.chain.Load(); s != nil {
			c.fz.from, c.fz.fromN = s, len(old)
		}
	}
	news := fz.stack[base : base+n-start]
	v.mu.Lock()
	if other := m.current(snap, ver, now); other != nil {
		// Another freeze made a copy of the same state meanwhile (parallel
		// iterations passing one value): pass that one, so all share it.
		v.mu.Unlock()
		fz.pop(base)
		return other, other.(*List).fz.size, nil
	}
	if same && m.ver == ver && m.snap == any(snap) {
		// Extend snap's array: every copy made from it so far is no
		// longer than snap, so the slots past len(old) are no one's.
		m.spare = append(m.spare[:len(old)], news[len(old)-start:]...)
		fz.copied += int64(n - len(old))
		if start == 0 {
			fz.reused += int64(len(old))
		}
	} else {
		spare := make([]Value, n)
		copy(spare, old[:start])
		copy(spare[start:], news)
		fz.copied += int64(n)
		if m.ver == ver {
			m.spare = spare
		}
		c.elems = spare
	}
	if m.ver == ver {
		c.elems = m.spare[:n:n]
		m.snap, m.snapVer, m.snapSets, m.snapEpoch, m.deep = c, ver, sets, now, deep
	}
	v.mu.Unlock()
	fz.pop(base)
	return c, size, nil
}

// object freezes the mutable object v.
func (fz *freezer) object(v *Object, depth int) (Value, int64, error) {
	v.mu.Lock()
	m := v.memo
	var fresh memo
	switch {
	case m != nil:
	case depth == 0 && fz.fresh:
		m = &fresh // no one else holds v: nothing to remember
	default:
		v.memo = new(memo)
		m = v.memo
	}
	now := epoch.Load()
	snap, _ := m.snap.(*Object)
	if snap != nil && m.snapVer == m.ver && (!m.deep || m.snapEpoch == now) {
		v.mu.Unlock()
		return snap, snap.fz.size, fz.reuse(snap.fz, depth)
	}
	n, ver := len(v.keys), m.ver
	if depth > MaxDepth || depth == MaxDepth && n > 0 {
		v.mu.Unlock()
		return nil, 0, ErrTooDeep
	}
	keys := v.keys[:n:n] // never rewritten below len
	base := len(fz.stack)
	fz.stack = append(fz.stack, v.vals...)
	v.mu.Unlock()

	size := int64(2)
	if err := fz.count(size); err != nil {
		return nil, 0, err
	}
	same := snap != nil && len(snap.keys) == n
	reach, flat, deep := 0, true, false
	for i := 0; i < n; i++ {
		ks := int64(len(keys[i])) + 4
		if err := fz.count(ks); err != nil {
			fz.pop(base)
			return nil, 0, err
		}
		e := fz.stack[base+i]
		deep = deep || mutable(e)
		c, s, err := fz.freeze(e, depth+1)
		if err != nil {
			fz.pop(base)
			return nil, 0, err
		}
		fz.stack[base+i] = c
		size = addSize(size, addSize(ks, s))
		if f := frozenFacts(c); f != nil {
			reach, flat = max(reach, f.reach), false
		}
		same = same && snap.keys[i] == keys[i] && identical(c, snap.vals[i])
	}
	if n > 0 {
		reach++
	}
	if same {
		fz.reused += int64(n)
		fz.pop(base)
		v.mu.Lock()
		if m.ver == ver {
			m.snapVer, m.snapEpoch, m.deep = ver, now, deep
		}
		v.mu.Unlock()
		return snap, snap.fz.size, nil
	}
	fz.copied += int64(n)
	fo := &frozenObject{}
	c := &fo.Object
	c.fz = &fo.facts
	c.fz.size, c.fz.reach, c.fz.flat = size, reach, flat
	c.keys, c.vals = keys, append([]Value(nil), fz.stack[base:base+n]...)
	if n >= objectIndexMin {
		c.idx = make(map[string]int, n)
		for i, k := range c.keys {
			c.idx[k] = i
		}
	}
	fz.pop(base)
	v.mu.Lock()
	if other := m.current(snap, ver, now); other != nil {
		v.mu.Unlock()
		return other, other.(*Object).fz.size, nil
	}
	if m.ver == ver {
		m.snap, m.snapVer, m.snapEpoch, m.deep = c, ver, now, deep
	}
	v.mu.Unlock()
	return c, size, nil
}

// frozenList and frozenObject hold a frozen value with its facts, in one
// allocation.
type frozenList struct {
	List
	facts
}

type frozenObject struct {
	Object
	facts
}

// count counts size bytes on fz.m, if any, and looks at its context every
// 1024 values.
func (fz *freezer) count(size int64) error {
	if fz.m == nil {
		return nil
	}
	fz.visits++
	if fz.visits%1024 == 0 {
		if err := fz.m.poll(); err != nil {
			return err
		}
	}
	return fz.m.add(size, 0)
}

// units is the work of the freezes so far: an element copied into a new
// frozen list or object counts one unit; a frozen or unchanged list or
// object, and an element walked and found unchanged, half a unit.
func (fz *freezer) units() int64 { return fz.copied + fz.reused/2 }

func (fz *freezer) pop(base int) {
	clear(fz.stack[base:])
	fz.stack = fz.stack[:base]
}

// Freeze returns v frozen: v itself when it is frozen already (or not a
// list or object), else a frozen copy that later changes to v do not
// reach. A list or object that did not change since it was last frozen,
// nor anything inside it, is not copied again: the earlier copy is
// returned. Values nested deeper than MaxDepth are an error wrapping
// ErrTooDeep.
func Freeze(v Value) (Value, error) {
	var fz freezer
	c, _, err := fz.freeze(v, 0)
	return c, err
}
