package delegation

import (
	"sync"
	"time"
)

// Snapshots of values that change little between calls.
//
// A call's arguments are frozen: the service sees them as they were when
// the call started. Most arguments are the same lists and objects as at
// the previous call, or those lists with one element appended (a ratchet
// passes its growing list of certified steps to every call). So a list or
// object remembers its last frozen copy and the number of changes it had
// seen then; freezing it again returns that copy, without copying, when
// neither the list nor any value inside it changed since. A frozen copy is
// an ordinary list or object: if a service changes one, the change is
// counted like any other and the next freeze copies afresh.

// memo is the state a list or object keeps for freezing; it is guarded by
// the value's mutex.
type memo struct {
	ver     uint64 // changes so far
	snap    any    // *List or *Object: the last frozen copy
	snapVer uint64 // ver when snap was made
	// sets counts the changes that are not appends (List.Set); snapSets
	// is sets when snap was made. A list that was only appended to since
	// keeps snap's elements as the prefix of its next copy, which extends
	// spare, the array snap's elements live in.
	sets, snapSets uint64
	spare          []Value
	// On a frozen copy: flat when no element is a list or object, and
	// size, its size (as measure counts it) when flat. shared when its
	// elements live in an array other copies use too (List.Set copies
	// them first).
	flat   bool
	shared bool
	size   int64
}

// freezer copies values for snapshots, reusing unchanged frozen copies.
type freezer struct {
	stack  []Value
	m      *meter // counts size as measure does; nil: not counted
	visits int64  // values walked
	// copied and reused count the elements of the lists and objects
	// walked that were copied, and that were found unchanged.
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

// freeze returns a copy of v that no one else holds, or the frozen copy
// made earlier when nothing in v changed since. Values nested deeper than
// MaxDepth are an error.
func (fz *freezer) freeze(val Value, depth int) (Value, error) {
	switch v := val.(type) {
	case *List:
		// As the encoder counts (tooDeep): a service is handed what
		// encodes, or the call fails here, before it is an attempt.
		if depth > MaxDepth || depth == MaxDepth && v.Len() > 0 {
			return nil, ErrTooDeep
		}
		if snap, ok := fz.unchangedFlat(&v.mu, &v.memo); ok {
			return snap, fz.count(snap.(*List).size)
		}
		base := len(fz.stack)
		v.mu.Lock()
		n := len(v.elems)
		ver := v.ver
		snap, _ := v.snap.(*List)
		// prefix: only appends since snap, which may then be extended.
		prefix := snap != nil && v.snapSets == v.sets
		v.mu.Unlock()
		var old []Value
		var oldFlat bool
		var oldSize int64
		if prefix {
			snap.mu.Lock()
			old, prefix = snap.elems, snap.ver == 0 && len(snap.elems) <= n
			oldFlat, oldSize = snap.flat, snap.size
			snap.mu.Unlock()
		}
		// After appends only, the elements of a flat copy are the same
		// plain values: only the new ones need a look, and only they are
		// taken onto the stack (fz.stack[base+i-start] is element i), so
		// the work is in proportion to the new elements, not the list.
		start := 0
		if prefix && oldFlat {
			start = len(old)
		}
		v.mu.Lock()
		if v.ver != ver {
			// Changed since it was looked at: copy it all afresh.
			n, ver, prefix, start = len(v.elems), v.ver, false, 0
		}
		fz.stack = append(fz.stack, v.elems[start:n]...)
		v.mu.Unlock()
		if prefix && oldFlat {
			fz.reused++
			if err := fz.count(oldSize + int64(n-len(old))); err != nil {
				return nil, err
			}
		} else if err := fz.count(2 + int64(n)); err != nil {
			return nil, err
		}
		for i := start; i < n; i++ {
			c, err := fz.freeze(fz.stack[base+i-start], depth+1)
			if err != nil {
				return nil, err
			}
			fz.stack[base+i-start] = c
			prefix = prefix && (i >= len(old) || identical(c, old[i]))
		}
		if prefix && len(old) == n {
			fz.reused += int64(n)
			fz.pop(base)
			return snap, nil
		}
		c := &List{}
		c.snap = c
		v.mu.Lock()
		if prefix && v.ver == ver && v.snap == snap {
			// Extend snap's array: every copy made from it so far is
			// shorter (and its own appends reallocate: cap == len), so the
			// slots past len(old) belong to no one yet.
			c.spare = append(snap.spare[:len(old)], fz.stack[base+len(old)-start:base+n-start]...)
			c.shared = true
			snap.mu.Lock()
			snap.shared = true
			snap.mu.Unlock()
			if start == 0 {
				fz.reused += int64(len(old))
			}
			fz.copied += int64(n - len(old))
		} else {
			c.spare = make([]Value, n)
			copy(c.spare, old[:start]) // the unchanged plain values, if any
			copy(c.spare[start:], fz.stack[base:base+n-start])
			fz.copied += int64(n)
		}
		c.elems = c.spare[:n:n]
		if start > 0 {
			// The first start elements are oldFlat's plain values.
			flat, size := flatSize(c.elems[start:], nil)
			c.flat, c.size = flat, oldSize+size-2
		} else {
			c.flat, c.size = flatSize(c.elems, nil)
		}
		if v.ver == ver {
			v.snap, v.snapVer, v.snapSets = c, ver, v.sets
		}
		v.mu.Unlock()
		fz.pop(base)
		return c, nil
	case *Object:
		if depth > MaxDepth || depth == MaxDepth && v.Len() > 0 {
			return nil, ErrTooDeep
		}
		if snap, ok := fz.unchangedFlat(&v.mu, &v.memo); ok {
			return snap, fz.count(snap.(*Object).size)
		}
		base := len(fz.stack)
		v.mu.Lock()
		keys := v.keys
		fz.stack = append(fz.stack, v.vals...)
		ver := v.ver
		snap, _ := v.snap.(*Object)
		same := snap != nil && v.snapVer == ver
		v.mu.Unlock()
		n := len(fz.stack) - base
		if err := fz.count(2); err != nil {
			return nil, err
		}
		var old []Value
		if same {
			snap.mu.Lock()
			old, same = snap.vals, snap.ver == 0 && len(snap.vals) == n
			snap.mu.Unlock()
		}
		for i := 0; i < n; i++ {
			if err := fz.count(int64(len(keys[i])) + 4); err != nil {
				return nil, err
			}
			c, err := fz.freeze(fz.stack[base+i], depth+1)
			if err != nil {
				return nil, err
			}
			fz.stack[base+i] = c
			same = same && identical(c, old[i])
		}
		if same {
			fz.reused += int64(n)
			fz.pop(base)
			return snap, nil
		}
		fz.copied += int64(n)
		c := &Object{keys: keys[:n:n], vals: append([]Value(nil), fz.stack[base:]...)}
		if n >= objectIndexMin {
			c.idx = make(map[string]int, n)
			for i, k := range c.keys {
				c.idx[k] = i
			}
		}
		c.snap = c
		c.flat, c.size = flatSize(c.vals, c.keys)
		fz.pop(base)
		v.mu.Lock()
		if v.ver == ver {
			v.snap, v.snapVer = c, ver
		}
		v.mu.Unlock()
		return c, nil
	}
	return val, fz.count(scalarSize(val))
}

// unchangedFlat returns the frozen copy of the list or object whose
// mutex and memo are mu and m when neither it nor the copy changed since
// the copy was made and the copy holds no list or object: then nothing
// inside can have changed either, and the copy is reused without a walk.
func (fz *freezer) unchangedFlat(mu *sync.Mutex, m *memo) (Value, bool) {
	mu.Lock()
	snap, ver, snapVer := m.snap, m.ver, m.snapVer
	mu.Unlock()
	if snap == nil || ver != snapVer {
		return nil, false
	}
	var sm *memo
	var smu *sync.Mutex
	switch c := snap.(type) {
	case *List:
		sm, smu = &c.memo, &c.mu
	case *Object:
		sm, smu = &c.memo, &c.mu
	}
	if smu != mu {
		smu.Lock()
		defer smu.Unlock()
	} else {
		mu.Lock()
		defer mu.Unlock()
	}
	if sm.ver != 0 || !sm.flat {
		return nil, false
	}
	fz.reused++
	return snap, true
}

// flatSize reports whether vals holds no list or object and, if so, the
// size measure counts for the list (keys nil) or object holding them.
func flatSize(vals []Value, keys []string) (bool, int64) {
	size := int64(2)
	if keys == nil {
		size += int64(len(vals))
	}
	for i, v := range vals {
		switch x := v.(type) {
		case *List, *Object:
			return false, 0
		default:
			size += scalarSize(x)
		}
		if keys != nil {
			size += int64(len(keys[i])) + 4
		}
	}
	return true, size
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
// list or object counts one unit; an element of a list or object found
// unchanged (walked, not copied) counts half a unit; a list or object
// found unchanged that holds no list or object is not walked and counts
// half a unit in all.
func (fz *freezer) units() int64 { return fz.copied + fz.reused/2 }

func (fz *freezer) pop(base int) {
	clear(fz.stack[base:])
	fz.stack = fz.stack[:base]
}

// Freeze returns a deep copy of v that later changes to v do not reach.
// Lists and objects that did not change since they were last frozen are
// not copied again: the earlier copy is returned. Values
// nested deeper than MaxDepth are an error wrapping ErrTooDeep.
func Freeze(v Value) (Value, error) {
	var fz freezer
	return fz.freeze(v, 0)
}
