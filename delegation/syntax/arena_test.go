package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
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

// countNodes' estimates hold for the corpus's blocks and the library's:
// each slab of a parse makes one array (an estimate that falls short
// makes a second, an allocation more per block).
func TestNodeCountsSuffice(t *testing.T) {
	blocks := corpusBlocks(t)
	files, _ := filepath.Glob(filepath.Join(testenv.MustRoot(t), "std", "*", "*.md"))
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, extractBlocks(filepath.Base(fn), src)...)
	}
	for _, bl := range blocks {
		var b buffers
		if _, errs := b.parse(bl.file, bl.lines); len(errs) > 0 {
			t.Fatalf("%s: %s", bl.file.Name, errs)
		}
		a := reflect.ValueOf(&b.p.a).Elem()
		for i := range a.NumField() {
			if f := a.Field(i); f.Kind() == reflect.Struct && f.FieldByName("arrays").IsValid() {
				if n := f.FieldByName("arrays").Int(); n > 1 {
					t.Errorf("%s: the %s slab made %d arrays: its estimate fell short", bl.file.Name, a.Type().Field(i).Name, n)
				}
			}
		}
	}
}
