package delegation

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"
	"testing"
)

// A frozen value is frozen once and shared: freezing it again, or a
// value that holds it, does not copy it; a change deep inside a value the
// program holds is seen by the next freeze (whatever else changed in
// between), and never by the copies made before.
func TestFrozenValuesAreShared(t *testing.T) {
	step := NewObject()
	step.Set("action", "tag")
	inner := NewList(step)
	outer := NewList(inner)
	f1, err := Freeze(outer)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Freeze(f1); again != f1 {
		t.Error("freezing a frozen value copied it")
	}
	holder := NewObject()
	holder.Set("x", f1)
	h, _ := Freeze(holder)
	if x, _ := h.(*Object).Get("x"); x != f1 {
		t.Error("a frozen value inside a value being frozen was copied")
	}
	if f2, _ := Freeze(outer); f2 != f1 {
		t.Error("an unchanged nested value was copied again")
	}

	// The outer list grows, then an element deep inside changes; and the
	// other way round: both are seen.
	outer.Append("b")
	step.Set("action", "retag")
	f3, _ := Freeze(outer)
	step.Set("action", "build")
	outer.Append("c")
	f4, _ := Freeze(outer)
	// A list added after the last freeze, changed after it was frozen.
	late := NewObject()
	outer.Append(late)
	f5, _ := Freeze(outer)
	late.Set("k", int64(1))
	f6, _ := Freeze(outer)
	for _, c := range []struct {
		v    Value
		want string
	}{
		{f1, `[[{"action":"tag"}]]`},
		{f3, `[[{"action":"retag"}],"b"]`},
		{f4, `[[{"action":"build"}],"b","c"]`},
		{f5, `[[{"action":"build"}],"b","c",{}]`},
		{f6, `[[{"action":"build"}],"b","c",{"k":1}]`},
	} {
		if got := js(t, c.v); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}

	// Parallel iterations passing one value to a service all pass the
	// same frozen copy; a change after the loop makes a new one.
	var mu sync.Mutex
	seen := map[Value]int{}
	caller := newCaller().on("w", func(_ context.Context, req *CallRequest) (Value, error) {
		v, _ := req.Args.Get("data")
		mu.Lock()
		seen[v]++
		mu.Unlock()
		return nil, nil
	})
	code := "parallel for j in [1, 2, 3, 4, 5, 6, 7, 8]:\n  call w\n    data: big\nbig[0][\"k\"] = 2\ncall w\n  data: big\nreturn 1"
	big := NewList()
	for range 100 {
		o := NewObject()
		o.Set("k", int64(1))
		big.Append(o)
	}
	if _, err := Run(context.Background(), parse(t, code), map[string]Value{"w": svc("w"), "big": big}, &Host{Caller: caller, Runtime: DefaultRuntime()}); err != nil {
		t.Fatal(err)
	}
	counts := []int{}
	for v, n := range seen {
		counts = append(counts, n)
		if !v.(*List).Frozen() {
			t.Error("a service was passed a mutable list")
		}
	}
	if len(counts) != 2 || counts[0]+counts[1] != 9 || (counts[0] != 8 && counts[1] != 8) {
		t.Errorf("copies passed, and how often: %v; want one copy 8 times, then another once", counts)
	}
}

// A service that answers with its frozen arguments gives the run mutable
// copies of them, with the sharing they had, and the copies the call was
// passed stay as they were.
func TestAnswerOfFrozenArgumentsIsThawed(t *testing.T) {
	caller := newCaller().on("echo", echo)
	code := `let t = [1]
let p = [t, t]
let r = call echo
  p: p
append 2 to r.p[0]
r["extra"] = true
return [r, p]`
	host := &Host{Caller: caller, Runtime: DefaultRuntime()}
	got := mustRun(t, code, map[string]Value{"echo": svc("echo")}, host)
	if want := `[{"p":[[1,2],[1,2]],"extra":true},[[1],[1]]]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if len(caller.log) != 1 || js(t, caller.log[0].Args) != `{"p":[[1],[1]]}` || !caller.log[0].Args.Frozen() {
		t.Errorf("the call's frozen arguments changed: %s", js(t, caller.log[0].Args))
	}
	// A frozen value with shared parts is thawed once per part, not once
	// per path to it: 2^60 paths, 61 lists.
	deep := NewList(int64(1))
	for range 60 {
		deep = NewList(deep, deep)
	}
	f, err := Freeze(deep)
	if err != nil {
		t.Fatal(err)
	}
	th := thaw(nil, f, 0, new(map[Value]Value))
	a, _ := th.(*List).Index(0)
	b, _ := th.(*List).Index(1)
	if a != b || th.(*List).Frozen() || a.(*List).Frozen() {
		t.Error("the thawed copy lost the sharing, or is frozen")
	}
}

// Sum is the sha256 of the JSON text, for mutable and frozen values
// alike; a frozen value remembers it.
func TestSumIsTheDigestOfTheJSON(t *testing.T) {
	o := NewObject()
	o.Set("b", NewList(int64(1), "two", 3.5, nil, true))
	o.Set("a", "<&>")
	f, _ := Freeze(o)
	for _, v := range []Value{nil, int64(7), "x", 1e21, NewList(), o, f} {
		b, err := ToJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Sum(v)
		if err != nil || got != sha256.Sum256(b) {
			t.Errorf("Sum(%s) = %x, %v; want the sha256 of the text", b, got, err)
		}
	}
	if f.(*Object).fz.sum.Load() == nil {
		t.Error("a frozen value did not remember its sum")
	}
	s1, _ := Sum(f)
	o.Set("a", "changed")
	s2, _ := Sum(o)
	s3, _ := Sum(f)
	if s1 != s3 || s1 == s2 {
		t.Error("the sum of a frozen copy followed its source, or a change left the sum as it was")
	}
	huge := NewList(strings.Repeat("x", DefaultMaxValueBytes))
	if _, err := Sum(huge); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Sum of a value beyond the ceiling: %v", err)
	}
}
