package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// The lists of a parse are cut from shared arrays: appending to one must
// not write into the next, and a statement skipped after a syntax error
// must leave nothing of its lists in the ones around it.
func TestListsAreTheirOwn(t *testing.T) {
	prog, errs := ParseString("t.prose", "if a:\n  let a = {x: 1, y: 2}\nlet b = [1, 2]\nlet c = {z: 3}\nlet d = [3]\n")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	before := Dump(prog)
	then := prog.Body[0].(*IfStmt).Then
	a := then[0].(*LetStmt).Value.(*ObjectLit)
	b := prog.Body[1].(*LetStmt).Value.(*ListLit)
	_ = append(a.Fields, &Field{Key: "w", Value: &NullLit{}})
	_ = append(b.Elems, &NullLit{})
	_ = append(then, &BranchStmt{})
	if after := Dump(prog); after != before {
		t.Errorf("an append to one list changed another:\n%s\nthen\n%s", before, after)
	}
}

func TestListsAfterASkippedStatement(t *testing.T) {
	code := strings.Join([]string{
		"let a = {x: [1, {y: 2, z: ]}, w: 3}",
		"let r = call s",
		"  k: {p: [1, 2,",
		"if x == {a: 1}:",
		"  let b = [1, {c: 2}]",
		"let e = {f: [4, 5], g: {h: 6}}",
		"",
	}, "\n")
	prog, errs := ParseString("t.prose", code)
	if len(errs) == 0 {
		t.Fatal("no syntax error")
	}
	want := "(if (== x (object (a 1))) (then (let b (list 1 (object (c 2))))))\n" +
		"(let e (object (f (list 4 5)) (g (object (h 6)))))"
	if got := Dump(prog); got != want {
		t.Errorf("got\n%s\nwant\n%s\n(errors: %s)", got, want, errs)
	}
}

// A frame looks its names up in a table once it has more than
// smallFrame of them, in the program's block and then in arrays of its
// own as it grows: every name keeps its slot, and a name it lacks has
// none.
func TestFrameSlotsAsItGrows(t *testing.T) {
	for _, n := range []int{smallFrame, smallFrame + 1, 16, 17, 33, 100} {
		var code strings.Builder
		for i := range n {
			fmt.Fprintf(&code, "let v%d = %d\n", i, i)
		}
		prog, errs := ParseString("t.prose", code.String())
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		fr := prog.Frame
		if len(fr.Names) != n {
			t.Fatalf("%d lets: %d names", n, len(fr.Names))
		}
		for i, s := range prog.Body {
			name := s.(*LetStmt).Name
			if fr.Slot(name.Name) != i || name.Binding.Index != i || fr.Names[i] != name.Name {
				t.Errorf("%d lets: %s has slot %d, binding %d; want %d", n, name.Name, fr.Slot(name.Name), name.Binding.Index, i)
			}
		}
		for _, absent := range []string{"v", "w0", fmt.Sprintf("v%d", n), ""} {
			if i := fr.Slot(absent); i != -1 {
				t.Errorf("%d lets: absent %q has slot %d", n, absent, i)
			}
		}
	}
}
