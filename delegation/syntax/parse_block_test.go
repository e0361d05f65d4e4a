package syntax

import (
	"slices"
	"testing"
)

func TestParseBlocks(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"do statement", "do:\n  let a = 1\n  a", `(do (let a 1) a)`},
		{"let do", "let x = do:\n  call s", `(let x (do (call s)))`},
		{"assign do", "x = do:\n  1", `(= x (do 1))`},
		{"return do", "return do:\n  1", `(return (do 1))`},
		{"do call", "let r = do review(draft, 3)", `(let r (do-call review draft 3))`},
		{"do call statement", "do notify()", `(do-call notify)`},
		{"do call arguments over lines", "do f(\n  a,\n  b + 1\n)", `(do-call f a (+ b 1))`},
		{"block", "block review(artifact, rounds):\n  return artifact", `(block review (artifact rounds) (return artifact))`},
		{"block without params", "block ping:\n  call s", `(block ping () (call s))`},
		{"do as a name", "let do = 1\ndo = do + 1\nreturn do", "(let do 1)\n(= do (+ do 1))\n(return do)"},
		{"loop for each as a value", "let v = loop for each x in xs (max: 2):\n  x", "(let v (loop-for-each x xs (max 2) x))"},
		{"loop as a name", "let loop = 1\nlet x = loop + 1", "(let loop 1)\n(let x (+ loop 1))"},
		{"block as a name", "let block = 1\nblock = 2\nblock", "(let block 1)\n(= block 2)\nblock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Dump(parseOK(t, tt.code)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseBlockErrors(t *testing.T) {
	tests := []struct{ name, code, want, rest string }{
		{"do without parentheses", "let r = do review\nlet y = 1",
			"t.prose:1:12: error: do review runs the block review with its arguments in parentheses: write do review(...), or do review() when it takes none [syntax/do-call]", "(let y 1)"},
		{"do in an expression", "let x = 1 + do f(2)\nlet y = 1",
			"t.prose:1:13: error: a do block is a value of its own, not a part of an expression: write `let NAME = do ...` on its own line and use NAME here [syntax/do-position]", "(let y 1)"},
		{"do in an object", "return {out: do f()}\nlet y = 1",
			"t.prose:1:14: error: a do block is a value of its own, not a part of an expression: write `let NAME = do ...` on its own line and use NAME here [syntax/do-position]", "(let y 1)"},
		{"do: in a list", "let x = [do:\n  1]\nlet y = 1",
			"t.prose:1:10: error: a do block is a value of its own, not a part of an expression: write `let NAME = do ...` on its own line and use NAME here [syntax/do-position]", "(let y 1)"},
		{"do with named arguments", "let r = do f(x: 1)\nlet y = 1",
			"t.prose:1:15: error: the arguments of do f(...) are given in the order of the block's parameters, not by name: write do f(VALUE, ...) [syntax/do-call]", "(let y 1)"},
		{"block parameter with a default", "block f(a, b = 1):\n  return a\nlet y = 1",
			"t.prose:1:14: error: a block's parameters take no default values: every do f(...) gives each one, in order [syntax/block-param]", "(let y 1)"},
		{"block not at top level", "if x:\n  block f(a):\n    return a\nlet y = 1",
			"t.prose:2:3: error: a block is defined at the top level of the program, not inside another statement: move block f out, unindented [syntax/nested-block]", "(if x (then))\n(let y 1)"},
		{"block in a do", "do:\n  block f():\n    return 1",
			"t.prose:2:3: error: a block is defined at the top level of the program, not inside another statement: move block f out, unindented [syntax/nested-block]", "(do)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, errs := ParseString("t.prose", tt.code)
			if len(errs) != 1 || errs[0].String() != tt.want {
				t.Errorf("got %v\nwant %s", errs, tt.want)
			}
			if got := Dump(prog); got != tt.rest {
				t.Errorf("parsed %s, want %s", got, tt.rest)
			}
		})
	}
}

// A do: block binds in a frame of its own, enclosed by the frame it
// stands in; a named block's frame holds its parameters first and is
// enclosed by the delegation's, wherever it is invoked; do NAME(...)
// finds its block before or after it.
func TestResolveBlocks(t *testing.T) {
	prog, errs := ParseString("t.md", `
let n = 1
let r = do f(n)
let d = do:
  let n = n + 1
  let m = 2
  n = m
block f(x):
  let y = x + n
  y
`)
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	let := prog.Body[1].(*LetStmt)
	call := let.Value.(*DoCallExpr)
	def := prog.Body[3].(*BlockStmt)
	if call.Def != def {
		t.Fatalf("do f resolves to %v, want the block of line 8", call.Def)
	}
	if !slices.Equal(def.Frame.Names, []string{"x", "y"}) {
		t.Errorf("block frame %v", def.Frame.Names)
	}
	do := prog.Body[2].(*LetStmt).Value.(*DoExpr)
	if !slices.Equal(do.Frame.Names, []string{"n", "m"}) {
		t.Errorf("do frame %v", do.Frame.Names)
	}
	// `let n = n + 1` in the do reads the outer n until it binds its own
	inner := do.Body[0].(*LetStmt)
	if b := inner.Name.Binding; b.Scope != Local || b.Shadows == nil || b.Shadows.Depth != 1 {
		t.Errorf("do's n: %+v", b)
	}
	// the block reads the top-level n one frame out
	sum := def.Body[0].(*LetStmt).Value.(*BinaryExpr)
	if b := sum.Y.(*Ident).Binding; b.Scope != Outer || b.Depth != 1 || prog.Frame.Names[b.Index] != "n" {
		t.Errorf("block's n: %+v", b)
	}
	if b := sum.X.(*Ident).Binding; b.Scope != Local || b.Index != 0 {
		t.Errorf("block's x: %+v", b)
	}
}

func init() {
	fuzzSeeds = append(fuzzSeeds,
		"let r = do:\n  let t = call w\n  return t\nx = do f(a, b + 1)\ndo:\n  for x in xs:\n    x\nblock f(a, b):\n  do g()\n  return a\n",
		"do f\ndo f(\nblock g(a,):\n  do:\n    block h():\n      1\nlet do = 1\nblock = do\n",
	)
}
