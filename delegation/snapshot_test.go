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

	// A service that changes its frozen arguments does not change what
	// the next freeze returns.
	p4, _ := f4.(*Object).Get("progress")
	p4.(*List).Append("garbage")
	f5, _ := Freeze(args)
	if js(t, f5) != `{"progress":[{"action":"retag"},{"action":"build"}]}` {
		t.Fatalf("a changed copy leaked: %s", js(t, f5))
	}

	if _, err := Freeze(deepList(MaxDepth + 2)); err == nil {
		t.Errorf("a too-deep value froze")
	}
}

// Copies of a list that only grows share one array; no copy, nor a
// change a service makes to one, reaches another.
func TestFreezeOfAGrowingList(t *testing.T) {
	xs := NewList("a")
	f1, _ := Freeze(xs)
	xs.Append("b")
	f2, _ := Freeze(xs)
	xs.Append("c")
	f1.(*List).Append("X") // a service changing its arguments
	f3, _ := Freeze(xs)
	f2.(*List).Append("Y")
	xs.Append("d")
	f4, _ := Freeze(xs)
	xs.Append("e")
	f6, _ := Freeze(xs)
	f4.(*List).Set(1, "Q") // shares its array with f6
	if got := js(t, f6); got != `["a","b","c","d","e"]` {
		t.Errorf("a Set on one copy reached another: %s", got)
	}
	if got := js(t, f4); got != `["a","Q","c","d"]` {
		t.Errorf("got %s", got)
	}
	f4.(*List).Set(1, "b")
	xs.Set(0, "z")
	f5, _ := Freeze(xs)
	for _, c := range []struct {
		v    Value
		want string
	}{
		{f1, `["a","X"]`}, {f2, `["a","b","Y"]`}, {f3, `["a","b","c"]`},
		{f4, `["a","b","c","d"]`}, {f5, `["z","b","c","d","e"]`}, {xs, `["z","b","c","d","e"]`},
	} {
		if got := js(t, c.v); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
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
