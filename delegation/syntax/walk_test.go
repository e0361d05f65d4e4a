package syntax

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestWalkOrderAndSkip(t *testing.T) {
	prog := parseOK(t, "let r = parallel for c, i in cs:\n"+
		"  try:\n"+
		"    let v = call c\n"+
		"      k: xs[i]\n"+
		"      on_fail use d\n"+
		"  catch as e:\n"+
		"    throw e\n"+
		"loop while n < 2 (max: m) as j:\n"+
		"  append {a: j} to out\n")
	var names []string
	Walk(prog, func(n Node) bool {
		if id, ok := n.(*Ident); ok {
			names = append(names, id.Name)
		}
		return true
	})
	want := strings.Fields("r c i cs v c xs i d e e n m j j out")
	if !reflect.DeepEqual(names, want) {
		t.Errorf("idents in order %v, want %v", names, want)
	}
	// Positions are visited in non-decreasing order of Pos.
	last := prog.Pos()
	Walk(prog, func(n Node) bool {
		if n.Pos() < last {
			t.Errorf("%T at %d visited after %d", n, n.Pos(), last)
		}
		last = n.Pos()
		return true
	})
	// Returning false skips children.
	var kinds []string
	Walk(prog, func(n Node) bool {
		kinds = append(kinds, fmt.Sprintf("%T", n))
		_, isLoop := n.(*ForExpr)
		return !isLoop
	})
	if got := strings.Join(kinds, " "); strings.Contains(got, "TryStmt") || !strings.Contains(got, "WhileStmt") {
		t.Errorf("skip failed: %s", got)
	}
}

func TestDumpSingleNodes(t *testing.T) {
	prog := parseOK(t, "let x = call advancer\n  task_brief: task_brief")
	if got := Dump(prog.Body[0]); got != "(let x (call advancer (arg task_brief task_brief)))" {
		t.Errorf("Dump(stmt) = %s", got)
	}
	if got := Dump(prog.Body[0].(*LetStmt).Value.(*CallExpr).Target); got != "advancer" {
		t.Errorf("Dump(ident) = %s", got)
	}
	if got := Dump(&Program{}); got != "" {
		t.Errorf("Dump(empty) = %q", got)
	}
}
