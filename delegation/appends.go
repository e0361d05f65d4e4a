package delegation

import (
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Appends from parallel bodies (semantics.md, rule 15a).
//
// Each list and object remembers the thread that made it (owner): the
// delegation's thread, or a parallel iteration or branch; a value a
// service returned, or a global, belongs to the thread that received it.
// A thread may change what it owns, and what the threads it started own
// (they have joined by then). An `append` by a parallel thread to a list
// it does not own is buffered in the thread (pending), and the join
// merges the buffers of the iterations in index order (branches in branch
// order), as appends of the joining thread. So while a parallel loop runs,
// the lists it reads from outside do not change, and what they hold after
// a loop that ran to its end does not depend on which iteration finished
// first. A parallel statement that fails merges nothing; one that a winner
// ends (a `parallel first`, or a `return` in a statement loop or branch)
// merges the appends of the iterations that ended up to the win, the
// winner's included, in index order (the others are canceled).

// pendingAppend is an append to a list of another thread, waiting for the
// join.
type pendingAppend struct {
	l *List
	v Value
}

// owns reports whether t may change a list or object that o owns: t is
// the delegation's thread, o is nil (a list from outside the run that no
// thread took), or o is t or a thread t started.
func (t *thread) owns(o *thread) bool {
	if t.parent == nil || o == nil {
		return true
	}
	for ; o != nil; o = o.parent {
		if o == t {
			return true
		}
	}
	return false
}

// own marks v, a list or object f just made, as its thread's.
func (f *frame) own(v Value) Value {
	switch x := v.(type) {
	case *List:
		x.owner.Store(f.th)
	case *Object:
		x.owner.Store(f.th)
	}
	return v
}

// adopt makes t the owner of the lists and objects in v that no thread
// owns yet: the value of a call, a global. It returns v, where frozen
// lists and objects (a call's arguments, which a service may hand back)
// are replaced by mutable copies the thread owns (thaw): what a run
// receives is its own to change, and the frozen copies stay as the calls
// that were passed them saw them.
func adopt(t *thread, v Value, depth int) Value {
	if depth > MaxDepth {
		return v
	}
	switch x := v.(type) {
	case *List:
		if x.fz != nil {
			return thaw(t, x, depth, new(map[Value]Value))
		}
		if !x.owner.CompareAndSwap(nil, t) {
			return v
		}
		for i, e := range x.Elems() {
			if c := adopt(t, e, depth+1); c != e {
				x.mu.Lock()
				if i < len(x.elems) && x.elems[i] == e {
					x.elems[i] = c
					if x.memo != nil {
						x.memo.changed(true)
					}
				}
				x.mu.Unlock()
			}
		}
	case *Object:
		if x.fz != nil {
			return thaw(t, x, depth, new(map[Value]Value))
		}
		if !x.owner.CompareAndSwap(nil, t) {
			return v
		}
		_, vals := x.entries()
		for i, e := range vals {
			if c := adopt(t, e, depth+1); c != e {
				x.mu.Lock()
				if x.vals[i] == e {
					x.vals[i] = c
					if x.memo != nil {
						x.memo.changed(true)
					}
				}
				x.mu.Unlock()
			}
		}
	}
	return v
}

// thaw copies the frozen value v into lists and objects t owns, once per
// frozen list or object (done, made when a list or object holds one, so
// for every list or object below it):
// parts shared in v are shared in the copy, so a frozen value with shared
// parts is copied in proportion to what it holds in memory, not to its
// size written out.
func thaw(t *thread, v Value, depth int, done *map[Value]Value) Value {
	f := frozenFacts(v)
	if f == nil || depth > MaxDepth {
		return v
	}
	if c, ok := (*done)[v]; ok {
		return c
	}
	if !f.flat && *done == nil {
		*done = map[Value]Value{}
	}
	switch x := v.(type) {
	case *List:
		c := &List{elems: make([]Value, len(x.elems))}
		c.owner.Store(t)
		if *done != nil {
			(*done)[v] = c
		}
		for i, e := range x.elems {
			c.elems[i] = thaw(t, e, depth+1, done)
		}
		return c
	case *Object:
		c := &Object{keys: x.keys, vals: make([]Value, len(x.vals))}
		if x.idx != nil {
			c.idx = make(map[string]int, len(x.idx))
			for k, i := range x.idx {
				c.idx[k] = i
			}
		}
		c.owner.Store(t)
		if *done != nil {
			(*done)[v] = c
		}
		for i, e := range x.vals {
			c.vals[i] = thaw(t, e, depth+1, done)
		}
		return c
	}
	return v
}

// appendTo appends v to l, or buffers the append when l belongs to
// another thread. What a thread holds buffered is bounded by the value
// ceiling: each element takes at least two bytes written out.
func (f *frame) appendTo(pos diag.Pos, l *List, v Value) error {
	if l.fz != nil {
		return f.errorf(pos, KindRuntime, "cannot append to a frozen list")
	}
	t := f.th
	if t.owns(l.owner.Load()) {
		l.Append(v)
		return nil
	}
	if int64(len(t.pending)+1)*2 > f.maxBytes() {
		return f.limitf(pos, LimitValueSize, "the appends of this parallel body to lists from outside it (%d elements, at least 2 bytes each written out) would pass the value size ceiling of %s (Host.MaxValueBytes)", len(t.pending)+1, diag.ByteSize(f.maxBytes()))
	}
	t.pending = append(t.pending, pendingAppend{l, v})
	return nil
}

// merge applies the buffered appends of a joined thread, as f's own.
func (f *frame) merge(pos diag.Pos, pending []pendingAppend) error {
	for _, a := range pending {
		if err := f.appendTo(pos, a.l, a.v); err != nil {
			return err
		}
	}
	return nil
}

// writable checks that f's thread may change v (an index assignment): a
// parallel body cannot change a list or object from outside it, since its
// siblings read them at the same time.
func (f *frame) writable(x *syntax.IndexExpr, v Value) error {
	var o *thread
	switch c := v.(type) {
	case *List:
		o = c.owner.Load()
	case *Object:
		o = c.owner.Load()
	}
	if f.th.owns(o) {
		return nil
	}
	return f.errorf(x.Lbrack, KindRuntime, "a parallel body cannot change %s, which is from outside it: its iterations run at the same time; collect values with append, or return them from the body", exprText(x.X))
}
