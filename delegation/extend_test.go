package delegation

import "testing"

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
		if flat, size := flatSize(c.elems, nil); c.flat != flat || c.size != size {
			t.Fatalf("copy of %d elements: flat %v size %d, measured whole %v %d", len(c.elems), c.flat, c.size, flat, size)
		}
	}
	if other := NewList(last.Elems()...); other.Extends(copies[10]) {
		t.Error("an equal list elsewhere in memory is said to extend without a comparison")
	}
	// A copy changed by a service (Set) extends nothing, nor is extended.
	prev := copies[len(copies)-2]
	if !last.Extends(prev) {
		t.Skip("the last copy reallocated")
	}
	prev.Set(0, "z")
	if last.Extends(prev) || prev.Extends(copies[len(copies)-3]) {
		t.Error("a copy changed after it was made is still extended")
	}
	if got := last.ElemsFrom(last.Len() - 2); len(got) != 2 || got[0] != int64(61) || got[1] != int64(62) {
		t.Errorf("ElemsFrom = %v", got)
	}
	if got := last.ElemsFrom(last.Len()); got != nil {
		t.Errorf("ElemsFrom at the end = %v", got)
	}
}
