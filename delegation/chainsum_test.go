package delegation

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

// refChain is the chain digest from the JSON text of l's elements.
func refChain(t *testing.T, l *List) [32]byte {
	t.Helper()
	c := sha256.Sum256([]byte("[]"))
	for _, e := range l.Elems() {
		b, err := ToJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		c = sha256.Sum256(append(c[:], s[:]...))
	}
	return c
}

// A growing list frozen for each call, its copy's chain digest taken each
// time, goes on from the digest of the copy before: each copy that
// extends a digested one starts where it ended, and its digest is the one
// its JSON text defines. A change to an old element starts the chain
// over, as does a copy of a copy that was never digested.
func TestChainSumIsIncremental(t *testing.T) {
	progress := NewList()
	var prev *List
	for i := range 30 {
		step := NewObject()
		step.Set("step", int64(i))
		step.Set("notes", NewList(fmt.Sprintf("note %d", i)))
		progress.Append(step)
		if i == 12 {
			s, _ := progress.Index(3)
			s.(*Object).Set("step", "three") // an old element changes
		}
		f, err := Freeze(progress)
		if err != nil {
			t.Fatal(err)
		}
		c := f.(*List)
		switch {
		case i == 0 || i == 12 || i == 21:
			if c.fz.from != nil {
				t.Fatalf("copy %d goes on from a chain it cannot extend", i)
			}
		case c.fz.from == nil || c.fz.fromN != prev.Len():
			t.Fatalf("copy %d does not go on from copy %d's digest (from %v, %d elements)", i, i-1, c.fz.from != nil, c.fz.fromN)
		}
		if i == 20 {
			prev = c // not digested: the next copy starts over
			continue
		}
		if got, want := ChainSum(c), refChain(t, c); got != want {
			t.Fatalf("copy %d: chain digest %x, from the JSON text %x", i, got, want)
		}
		if got, want := ChainSum(progress), refChain(t, progress); got != want {
			t.Fatalf("list %d, not frozen: chain digest %x, want %x", i, got, want)
		}
		prev = c
	}
	if ChainSum(nil) != sha256.Sum256([]byte("[]")) || ChainSum(NewList()) != sha256.Sum256([]byte("[]")) {
		t.Error("the empty list's chain digest is not sha256 of []")
	}
}
