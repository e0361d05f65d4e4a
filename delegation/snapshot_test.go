package delegation

import (
	"testing"
)

// Freezing copies a value once: unchanged lists and objects come back as
// the same copy, a change copies the path to it afresh, and the copy
// never sees later changes.
func TestFreezeReusesUnchangedCopies(t *testing.T) {
	step := NewObject()
	step.Set("action", "tag")
	progress := NewList(step)
	args := NewObject()
	args.Set("progress", progress)

	f1, err := Freeze(args)
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := Freeze(args)
	if f1 != f2 {
		t.Errorf("an unchanged value was copied again")
	}
	if f1.(*Object) == args {
		t.Fatalf("Freeze returned the original")
	}

	next := NewObject()
	next.Set("action", "build")
	progress.Append(next)
	f3, _ := Freeze(args)
	if f3 == f1 || js(t, f1) != `{"progress":[{"action":"tag"}]}` || js(t, f3) != `{"progress":[{"action":"tag"},{"action":"build"}]}` {
		t.Fatalf("after append: %s, then %s", js(t, f1), js(t, f3))
	}
	p1, _ := f1.(*Object).Get("progress")
	p3, _ := f3.(*Object).Get("progress")
	e1, _ := p1.(*List).Index(0)
	e3, _ := p3.(*List).Index(0)
	if e1 != e3 {
		t.Errorf("the unchanged first step was copied again")
	}

	// A change deep inside is seen.
	step.Set("action", "retag")
	f4, _ := Freeze(args)
	if js(t, f4) != `{"progress":[{"action":"retag"},{"action":"build"}]}` || js(t, f3) != `{"progress":[{"action":"tag"},{"action":"build"}]}` {
		t.Fatalf("after a nested change: %s (earlier copy %s)", js(t, f4), js(t, f3))
	}

	// A frozen copy refuses changes (a service must not change its
	// arguments), and freezing it returns it.
	p4, _ := f4.(*Object).Get("progress")
	if !panics(func() { p4.(*List).Append("garbage") }) || !panics(func() { p4.(*List).Set(0, 1) }) || !panics(func() { f4.(*Object).Set("k", 1) }) {
		t.Error("a frozen copy was changed")
	}
	if again, _ := Freeze(f4); again != f4 {
		t.Error("freezing a frozen value copied it")
	}
	f5, _ := Freeze(args)
	if f5 != f4 || js(t, f5) != `{"progress":[{"action":"retag"},{"action":"build"}]}` {
		t.Fatalf("after a refused change: %s", js(t, f5))
	}

	if _, err := Freeze(deepList(MaxDepth + 2)); err == nil {
		t.Errorf("a too-deep value froze")
	}
}

// Copies of a list that only grows share one array (but where it had
// to grow); no change of the
// list after a copy reaches the copy.
func TestFreezeOfAGrowingList(t *testing.T) {
	xs := NewList("a")
	f1, _ := Freeze(xs)
	xs.Append("b")
	f2, _ := Freeze(xs)
	xs.Append("c")
	f3, _ := Freeze(xs)
	xs.Append("d")
	f4, _ := Freeze(xs)
	xs.Append("e")
	f6, _ := Freeze(xs)
	if !sharesArray(f6.(*List), f4.(*List)) && !sharesArray(f4.(*List), f3.(*List)) {
		t.Error("copies of a growing list do not share its array")
	}
	xs.Set(1, "Q") // the array f4 and f6 share is not the list's
	f5, _ := Freeze(xs)
	if sharesArray(f5.(*List), f6.(*List)) {
		t.Error("a copy after a Set extends the one before it")
	}
	xs.Append("f")
	f7, _ := Freeze(xs)
	for _, c := range []struct {
		v    Value
		want string
	}{
		{f1, `["a"]`}, {f2, `["a","b"]`}, {f3, `["a","b","c"]`},
		{f4, `["a","b","c","d"]`}, {f6, `["a","b","c","d","e"]`},
		{f5, `["a","Q","c","d","e"]`}, {f7, `["a","Q","c","d","e","f"]`}, {xs, `["a","Q","c","d","e","f"]`},
	} {
		if got := js(t, c.v); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// Parallel iterations freeze and append to one list at once (run with
// -race): every copy is a prefix of the final list.
func TestFreezeConcurrently(t *testing.T) {
	xs := NewList()
	done := make(chan []Value)
	for g := range 4 {
		go func() {
			var copies []Value
			for i := range 200 {
				xs.Append(int64(g*1000 + i))
				c, err := Freeze(xs)
				if err != nil {
					t.Error(err)
				}
				copies = append(copies, c)
			}
			done <- copies
		}()
	}
	var all []Value
	for range 4 {
		all = append(all, <-done...)
	}
	final := xs.Elems()
	for _, c := range all {
		for i, e := range c.(*List).Elems() {
			if e != final[i] {
				t.Fatalf("a copy is not a prefix of the list: element %d is %v, want %v", i, e, final[i])
			}
		}
	}
}

// sharesArray reports whether frozen list l's elements begin with prev's
// because they are the same elements in memory.
func sharesArray(l, prev *List) bool {
	return len(prev.elems) <= len(l.elems) && (len(prev.elems) == 0 || &prev.elems[0] == &l.elems[0])
}
