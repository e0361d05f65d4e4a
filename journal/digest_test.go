package journal

import (
	"fmt"
	"testing"

	"github.com/proselang/prose/delegation"
)

// The digest of a call's arguments depends on the arguments alone: plain
// (not frozen) lists, growing call after call, digest as their JSON text
// defines (refArgs), and any change in an element, old or new, changes
// the digest.
func TestArgDigestIsAFunctionOfTheArguments(t *testing.T) {
	var elems []delegation.Value
	obj := func(i int) delegation.Value {
		o := delegation.NewObject()
		o.Set("step", int64(i))
		return o
	}
	seen := map[string]bool{}
	for i := range 30 {
		if i%3 == 0 {
			elems = append(elems, obj(i))
		} else {
			elems = append(elems, fmt.Sprintf("step %d", i))
		}
		args := delegation.NewObject()
		args.Set("task", "t")
		args.Set("progress", delegation.NewList(elems...))
		got := argsDigest(args, nil)
		if want := refArgs(t, args); got != want {
			t.Fatalf("step %d: digest %s, from the JSON text %s", i, got, want)
		}
		if seen[got] {
			t.Fatalf("step %d: digest %s seen before", i, got)
		}
		seen[got] = true
	}
	// An old element changed: the digest changes.
	changed := append([]delegation.Value{}, elems...)
	changed[4] = "step four"
	args := delegation.NewObject()
	args.Set("task", "t")
	args.Set("progress", delegation.NewList(changed...))
	if got := argsDigest(args, nil); seen[got] || got != refArgs(t, args) {
		t.Errorf("a changed old element: digest %s (seen before: %v)", got, seen[got])
	}
}

// Frozen argument lists (as the evaluator passes them) are digested as the
// same elements in plain lists are; a frozen copy refuses a service's
// change, so what was digested stays what the call was passed.
func TestArgDigestOfFrozenLists(t *testing.T) {
	progress := delegation.NewList()
	var prevCopy *delegation.List
	for i := range 40 {
		progress.Append(fmt.Sprintf("step %d", i))
		f, err := delegation.Freeze(progress)
		if err != nil {
			t.Fatal(err)
		}
		args := delegation.NewObject()
		args.Set("progress", f)
		got := argsDigest(args, nil)
		fresh := delegation.NewObject()
		fresh.Set("progress", delegation.NewList(progress.Elems()...))
		if want := argsDigest(fresh, nil); got != want {
			t.Fatalf("step %d: frozen digest %s, plain %s", i, got, want)
		}
		if i == 20 {
			prevCopy = f.(*delegation.List)
			func() {
				defer func() { _ = recover() }()
				prevCopy.Set(0, "changed by a service")
			}()
			if v, _ := prevCopy.Index(0); v != "step 0" {
				t.Fatalf("a frozen copy was changed: element 0 is %v", v)
			}
		}
	}
	if prevCopy == nil {
		t.Fatal("no copy changed")
	}
}
