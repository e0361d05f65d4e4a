package delegation

import (
	"bytes"
	"math/rand/v2"
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

// Two values have the same digest exactly when their JSON texts are the
// same; a digest follows every change, also deep inside, and stays put
// otherwise.
func TestDigestFollowsJSONText(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var vals []Value
	for range 400 {
		vals = append(vals, randomValue(r, 3))
	}
	vals = append(vals, int64(1), 1.0, "1", NewList(), NewObject(), NewList(NewList()), nil, "null")
	digests := make([][32]byte, len(vals))
	texts := make([][]byte, len(vals))
	for i, v := range vals {
		var err error
		if digests[i], err = Digest(v); err != nil {
			t.Fatal(err)
		}
		texts[i] = []byte(js(t, v))
	}
	for i := range vals {
		for j := range vals {
			if (digests[i] == digests[j]) != bytes.Equal(texts[i], texts[j]) {
				t.Fatalf("%s and %s: digests equal %v", texts[i], texts[j], digests[i] == digests[j])
			}
		}
	}
	// Freshly built equal values digest alike (nothing cached).
	for i, v := range vals[:50] {
		c, _ := FromJSON(texts[i])
		// (Invalid UTF-8 decodes to U+FFFD, which writes differently.)
		if d, _ := Digest(c); (d == digests[i]) != (js(t, c) == string(texts[i])) {
			t.Fatalf("%s: a rebuilt value digests differently", texts[i])
		}
		if d, _ := Digest(v); d != digests[i] {
			t.Fatalf("%s: the digest changed without a change", texts[i])
		}
	}

	inner := NewObject()
	inner.Set("k", "v")
	outer := NewList(NewList(inner), "x")
	d1, _ := Digest(outer)
	inner.Set("k", "w")
	d2, _ := Digest(outer)
	inner.Set("k", "v")
	d3, _ := Digest(outer)
	if d1 == d2 || d1 != d3 {
		t.Errorf("a nested change: %x %x %x", d1[:4], d2[:4], d3[:4])
	}
	l, _ := outer.Index(0)
	l.(*List).Set(0, "y")
	if d4, _ := Digest(outer); d4 == d3 {
		t.Errorf("Set did not change the digest")
	}

	// Shared parts are hashed once: forty doublings digest at once, and
	// like the same value built without sharing at the bottom.
	tree := NewList("leaf")
	other := NewList("leaf")
	for i := range 40 {
		tree = NewList(tree, tree)
		if i < 39 {
			other = NewList(other, other)
		}
	}
	other = NewList(other, NewList(tree.elems[0].(*List).elems...))
	dt, err := Digest(tree)
	if err != nil {
		t.Fatal(err)
	}
	if do, _ := Digest(other); do != dt {
		t.Errorf("equal shared values digest differently")
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
