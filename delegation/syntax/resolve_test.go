package syntax

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// bindings lists "name@line:where" for every identifier of prog in
// source order: where is "local" or "outerN" (N frames out), then "<-"
// and the shadowed binding when there is one. It fails the test when a
// slot's name in its frame is not the identifier's.
func bindings(t *testing.T, code string) (*Program, []string) {
	t.Helper()
	prog, errs := ParseString("t.md", code)
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	var out []string
	var show func(id *Ident, b *Binding, stack []*Frame) string
	show = func(id *Ident, b *Binding, stack []*Frame) string {
		var s string
		switch b.Scope {
		case Local:
			s = "local"
		case Outer:
			s = fmt.Sprintf("outer%d", b.Depth)
		default:
			t.Errorf("%s unresolved", id.Name)
			return "?"
		}
		if b.Depth >= len(stack) {
			t.Errorf("%s: depth %d, only %d frames", id.Name, b.Depth, len(stack))
			return s
		}
		if fr := stack[len(stack)-1-b.Depth]; fr.Names[b.Index] != id.Name {
			t.Errorf("%s resolves to slot %d of a frame holding %v", id.Name, b.Index, fr.Names)
		}
		if b.Shadows != nil {
			s += "<-" + show(id, b.Shadows, stack)
		}
		return s
	}
	var walk func(n Node, stack []*Frame)
	walk = func(n Node, stack []*Frame) {
		Walk(n, func(n Node) bool {
			switch n := n.(type) {
			case *Ident:
				out = append(out, fmt.Sprintf("%s@%d:%s", n.Name, prog.File.Position(n.NamePos).Line, show(n, &n.Binding, stack)))
			case *ForExpr:
				if n.Frame != nil {
					walk(n.X, stack)
					inner := append(slices.Clip(stack), n.Frame)
					walk(n.Var, inner)
					if n.Index != nil {
						walk(n.Index, inner)
					}
					for _, s := range n.Body {
						walk(s, inner)
					}
					return false
				}
			case *RepeatExpr:
				if n.Frame != nil {
					walk(n.Count, stack)
					inner := append(slices.Clip(stack), n.Frame)
					if n.Var != nil {
						walk(n.Var, inner)
					}
					for _, s := range n.Body {
						walk(s, inner)
					}
					return false
				}
			case *ParallelStmt:
				for i, br := range n.Branches {
					walk(br, append(slices.Clip(stack), n.Frames[i]))
				}
				return false
			}
			return true
		})
	}
	walk(prog, []*Frame{prog.Frame})
	return prog, out
}

func TestResolveSlots(t *testing.T) {
	prog, got := bindings(t, `
let acc = []
repeat n as i:
  append i to acc
let xs = parallel for x in items:
  let y = x + base
  let acc2 = acc
  y
parallel:
  let a = call s
  let b = call s
return { a: a, b: b, xs: xs, y: y }
`)
	want := []string{
		"acc@2:local",
		"n@3:local", // free: a global, a slot of the delegation
		"i@3:local",
		"i@4:local",
		"acc@4:local",
		"xs@5:local",
		"items@5:local",
		"x@5:local<-outer1", // x, y and acc2 shadow delegation slots (globals, if any)
		"y@6:local<-outer1",
		"x@6:local<-outer1",
		"base@6:outer1",
		"acc2@7:local<-outer1",
		"acc@7:outer1",
		"y@8:local<-outer1",
		"a@10:local<-outer1", // and exported to the delegation's a
		"s@10:outer1",
		"b@11:local<-outer1",
		"s@11:outer1",
		"a@12:local",
		"b@12:local",
		"xs@12:local",
		"y@12:local",
	}
	if !slices.Equal(got, want) {
		t.Errorf("bindings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The branches of parallel: bind in frames of their own, and their
	// names are the delegation's slots too (copied out at the join).
	var par *ParallelStmt
	for _, s := range prog.Body {
		if p, ok := s.(*ParallelStmt); ok {
			par = p
		}
	}
	if par == nil || len(par.Frames) != 2 {
		t.Fatalf("parallel frames: %+v", par)
	}
	for i, name := range []string{"a", "b"} {
		fr := par.Frames[i]
		if !slices.Equal(fr.Names, []string{name}) || prog.Frame.Names[fr.Export[0]] != name {
			t.Errorf("branch %d: names %v, export %v (delegation %v)", i, fr.Names, fr.Export, prog.Frame.Names)
		}
	}
}

// A name a parallel body reads and does not bind is its enclosing
// frame's, however deeply the bodies nest; one it binds shadows the
// outer one.
func TestResolveNestedParallel(t *testing.T) {
	_, got := bindings(t, `
let k = 1
parallel for x in xs:
  parallel repeat 2 as j:
    let k = x + j + k
`)
	want := []string{
		"k@2:local",
		"xs@3:local",
		"x@3:local<-outer1",
		"j@4:local<-outer2",
		"k@5:local<-outer2",
		"x@5:outer1<-outer2",
		"j@5:local<-outer2",
		"k@5:local<-outer2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("bindings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
