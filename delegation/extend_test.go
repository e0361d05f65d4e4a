package delegation

import (
	"context"
	"testing"
)

// A frozen copy of a list that grew extends the frozen copy before it
// (except where the array had to grow: then Extends says false and the
// caller compares); copies of unrelated or changed lists do not.
func TestFrozenCopyExtends(t *testing.T) {
	l := NewList("a", "b")
	var copies []*List
	extended := 0
	for i := 0; i < 64; i++ {
		f, err := Freeze(l)
		if err != nil {
			t.Fatal(err)
		}
		c := f.(*List)
		if !c.Extends(c) {
			t.Fatal("a frozen copy does not extend itself")
		}
		if n := len(copies); n > 0 {
			if c.Extends(copies[n-1]) {
				extended++
			}
			if copies[n-1].Extends(c) {
				t.Error("a shorter list extends a longer one")
			}
		}
		copies = append(copies, c)
		l.Append(int64(i))
	}
	if extended < 50 {
		t.Errorf("%d of 63 frozen copies extend the one before, want nearly all", extended)
	}
	last := copies[len(copies)-1]
	// A copy that extends another took only the new elements' size: the
	// same as measuring it whole.
	for _, c := range copies {
		m := newMeter(context.Background(), 0)
		if err := measure(m, NewList(c.Elems()...), 0); err != nil || c.fz.size != m.size || !c.fz.flat {
			t.Fatalf("copy of %d elements: size %d flat %v, measured whole %d (%v)", len(c.elems), c.fz.size, c.fz.flat, m.size, err)
		}
		m.release()
	}
	if other := NewList(last.Elems()...); other.Extends(copies[10]) {
		t.Error("an equal list elsewhere in memory is said to extend without a comparison")
	}
	// A mutable list extends nothing, nor is extended.
	if l.Extends(last) || last.Extends(l) {
		t.Error("a mutable list is said to extend or be extended")
	}
	if got := last.ElemsFrom(last.Len() - 2); len(got) != 2 || got[0] != int64(61) || got[1] != int64(62) {
		t.Errorf("ElemsFrom = %v", got)
	}
	if got := last.ElemsFrom(last.Len()); got != nil {
		t.Errorf("ElemsFrom at the end = %v", got)
	}
}
