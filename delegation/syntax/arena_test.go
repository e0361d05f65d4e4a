package syntax

import (
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
