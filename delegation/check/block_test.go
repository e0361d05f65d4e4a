package check_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
)

func blockCases() []checkCase {
	return []checkCase{
		{name: "do block and named block", slots: "w", inputs: "topic", outputs: "out",
			code: "let n = 1\nlet d = do:\n  let t = call w\n    topic: topic\n  n = 2\n  return t\nlet r = do twice(d, n)\nreturn {out: r}\nblock twice(x, k):\n  let y = call w\n    x: x\n  if k > 1:\n    return y\n  y"},
		{name: "names of a do block are gone after it",
			code: "do:\n  let t = 1\nreturn t",
			want: []string{"3:8 error check/undefined-name 't'"}},
		{name: "let in a do shadows", outputs: "out",
			code: "let n = 1\ndo:\n  let n = 2\nreturn {out: n}",
			want: []string{"3:7 warning check/redeclared let 'n' in the block makes a name of its own, which hides the 'n' of line 1"}},
		{name: "a block whose value is read gives none", slots: "w", outputs: "out",
			code: "let r = do:\n  let s = call w\nlet t = do f(1)\ndo f(2)\ndo:\n  let u = 1\nlet v = do g()\nreturn {out: [r, t, v]}\nblock f(x):\n  let y = call w\n    x: x\nblock g():\n  throw \"no\"",
			want: []string{
				"1:9 error check/block-no-value this do: block gives no value",
				"3:12 error check/block-no-value block f (line 9) gives no value",
			}},
		{name: "a block without value ends a body whose value is kept", inputs: "xs", outputs: "out",
			code: "block add(a, b):\n  let s = a + b\nlet t = xs | reduce(acc, x):\n  do add(acc, x)\nlet u = for x in xs:\n  do:\n    let y = x\nfor x in xs:\n  do add(x, x)\nreturn {out: [t, u]}",
			want: []string{
				"4:6 error check/block-no-value block add (line 1) gives no value",
				"6:3 error check/block-no-value this do: block gives no value",
			}},
		{name: "a block whose value is null on some paths", inputs: "xs", outputs: "out",
			code: "block classify(x):\n  if x > 2:\n    return \"big\"\n  elif x > 1:\n    return \"mid\"\nblock sure(x):\n  if x > 2:\n    return \"big\"\n  \"small\"\nlet a = xs | map:\n  do classify(item)\nlet b = do classify(1)\nlet c = do sure(1)\ndo classify(2)\nreturn {out: [a, b, c]}",
			want: []string{
				"11:6 warning check/block-null-path block classify (line 1) gives a value on some paths only",
				"12:12 warning check/block-null-path block classify (line 1)",
			}},
		{name: "undefined block with the name meant",
			code: "block review(a):\n  return a\nreturn do reveiw(1)",
			want: []string{
				"1:7 warning check/unused-block block 'review' is never run: no do review(...) reaches it; run it where its work is meant, or drop it",
				"3:11 error check/undefined-block no block named 'reveiw' is defined; did you mean 'review'?",
			}},
		{name: "blocks no do runs",
			code: "block a():\n  return do b()\nblock b():\n  return 1\nblock self(n):\n  return do self(n)\nblock c():\n  return 2\nblock d():\n  return do c()\nreturn do:\n  do d()",
			want: []string{
				"1:7 warning check/unused-block block 'a' is never run",
				"3:7 warning check/unused-block block 'b' is never run",
				"5:7 warning check/unused-block block 'self' is never run",
			}},
		{name: "block named like a ## node that nothing calls", nodes: "summarize other",
			code: "block summarize(x):\n  return x\nreturn do summarize(1)",
			want: []string{"1:7 error check/block-name block 'summarize' has the name of the ## node 'summarize' (line 1), which call summarize runs: rename the block"}},
		{name: "undefined block",
			code: "return do review(1)",
			want: []string{"1:11 error check/undefined-block no block named 'review' is defined: define it at the top level, block review(...):"}},
		{name: "argument count",
			code: "block review(a, b):\n  return a\nreturn do review(1)",
			want: []string{"3:11 error check/block-args block review takes 2 arguments (a, b, line 1), and this do gives 1: write do review(a, b)"}},
		{name: "duplicate block",
			code: "block f():\n  return 1\nblock f():\n  return 2\nreturn do f()",
			want: []string{"3:7 error check/block-name block 'f' is defined twice (first at line 1)"}},
		{name: "duplicate parameter",
			code: "block f(a, a):\n  return a\nreturn do f(1, 2)",
			want: []string{"1:12 error check/block-param block f names the parameter 'a' twice"}},
		{name: "block named like a callee", slots: "w",
			code: "block w():\n  return 1\nreturn do w()",
			want: []string{"1:7 error check/block-name block 'w' has the name of the callee 'w'"}},
		{name: "block named like a variable",
			code: "let f = 1\nblock f():\n  return f\nreturn do f()",
			want: []string{"2:7 error check/block-name block 'f' has the name of the name 'f' (line 1)"}},
		{name: "parameter assigned",
			code: "block f(a):\n  a = 2\n  let a = 3\n  for a in [1]:\n    a\n  return a\nreturn do f(1)",
			want: []string{
				"2:3 error check/block-assign 'a' is a parameter of the block (line 1), which nothing assigns",
				"3:7 error check/block-assign 'a' is a parameter",
				"4:7 error check/block-assign 'a' is a parameter",
			}},
		{name: "top-level name assigned from a block",
			code: "let n = 1\nblock f(a):\n  n = a\n  do:\n    n = 2\nreturn do f(1)",
			want: []string{
				"3:3 error check/block-assign a block cannot assign the top-level 'n' (line 1)",
				"5:5 error check/block-assign a block cannot assign the top-level 'n' (line 1)",
			}},
		{name: "continue cannot leave a block",
			code: "for x in [1]:\n  do:\n    continue\nblock f():\n  break\ndo f()",
			want: []string{
				"3:5 error check/branch-outside-loop continue cannot leave a do: block",
				"5:3 error check/branch-outside-loop break cannot leave block f",
			}},
		{name: "a loop variable of a block is the block's own", inputs: "topic", outputs: "out",
			code: "let r = do:\n  for topic in [1]:\n    topic\nreturn {out: [r, topic]}"},
		{name: "a loop variable read after its loop in the block", inputs: "topic", outputs: "out",
			code: "let r = do:\n  for topic in [1]:\n    topic\n  topic\nreturn {out: r}",
			want: []string{"0 warning check/unused-input", "2:7 error check/loop-var-overwrite the loop variable topic has the name of the input topic, and overwrites it: line 4 reads"}},
		{name: "a block reads the top-level names and the inputs", inputs: "topic", outputs: "out",
			code: "let r = do f()\nlet later = 2\nreturn {out: r}\nblock f():\n  return [topic, later, nowhere]",
			want: []string{"5:25 error check/undefined-name 'nowhere'"}},
	}
}

func TestCheckBlocks(t *testing.T) {
	runCheckCases(t, blockCases())
}

// A return in a block gives the block's value: it is not the
// Execution's, which still needs one of its own.
func TestReturnInABlockIsNotTheExecutions(t *testing.T) {
	prog, errs := syntax.ParseString("t.prose.md", "let r = do:\n  return 1\ndo f()\nblock f():\n  return 2")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	d := decls("", "", "", "a b")
	d.ReturnRule = true
	got := check.Check(prog, d).Dedupe()
	if len(got) != 1 || got[0].Code != check.CodeReturnShape || got[0].Line != 1 {
		t.Errorf("got %s, want the Execution that never returns", got)
	}
}

// A let in a named block, or in a do: block in a parallel body, that
// hides an outer name is warned of; its fix never suggests assigning the
// outer name, which neither may do (check/block-assign,
// check/parallel-assign). A do: block at the top level may.
func TestShadowingHintIsNoError(t *testing.T) {
	code := "let n = 1\nblock f():\n  let n = 2\n  return n\nlet m = parallel for x in [1]:\n  do:\n    let n = x\n  x\ndo:\n  let n = 3\nlet r = do f()\nreturn {out: r + m[0]}"
	prog, errs := syntax.ParseString("t.prose.md", code)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	got := check.Check(prog, decls("", "", "", "out")).Dedupe()
	var lines []int
	for _, d := range got {
		if d.Code != "check/redeclared" {
			continue
		}
		lines = append(lines, d.Line)
		assigns := strings.Contains(d.Message, "write n = ...")
		if assigns != (d.Line == 10) {
			t.Errorf("%d: %s: the fix offers the assignment %v, want %v", d.Line, d.Message, assigns, d.Line == 10)
		}
	}
	if len(lines) != 3 {
		t.Errorf("shadowing warnings at lines %v, want 3, 7, 10:\n%s", lines, got)
	}
}

// An Execution whose only return is in a do: block, a pipeline stage's
// body or a collecting loop is told where that return belongs.
func TestNeverReturnsNamesTheReturnThatIsNotTheExecutions(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"do:\n  if a:\n    return 1\n  2", "the Execution never returns (the return at line 3 gives the value of its do: block, not the Execution's)"},
		{"let ys = [1] | map:\n  return item", "(the return at line 2 gives the value of one item of its pipeline stage, not the Execution's)"},
		{"let ys = for x in [1]:\n  return x", "(the return at line 2 gives the value of one iteration of its loop, not the Execution's)"},
		{"do f()\nblock f():\n  return 2", "(the return at line 3 gives the value of block f, not the Execution's)"},
		{"let a = 1", "the Execution never returns, so every run"},
	} {
		prog, errs := syntax.ParseString("t.prose.md", tc.code)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		d := decls("", "", "a", "out")
		d.ReturnRule = true
		got := check.Check(prog, d).Dedupe()
		found := false
		for _, g := range got {
			found = found || g.Code == check.CodeReturnShape && strings.Contains(g.Message, tc.want)
		}
		if !found {
			t.Errorf("%q: got %s, want a message with %q", tc.code, got, tc.want)
		}
	}
}

// Braces around a block run, a call or an expression of a bound name in
// a string are text: lint warns, at the brace; JSON, a template's
// placeholders and names the program does not bind are left alone.
func TestExprBraceIsText(t *testing.T) {
	code := "block f():\n  return 1\nlet n = 2\nlet xs = [1]\nlet a = \"{do f()} {n + 1} {xs[0]} {n}\"\nlet b = \"{other + 1} {\\\"k\\\": n} {{n}\"\nreturn {out: [a, b]}"
	prog, errs := syntax.ParseString("t.prose.md", code)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	var got []string
	for _, d := range check.Check(prog, decls("", "", "", "out")).Dedupe() {
		if d.Code == check.CodeExprBrace {
			got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Col, strings.SplitN(d.Message, " is text", 2)[0]))
		}
	}
	want := []string{"5:10 {do f()}", "5:19 {n + 1}", "5:27 {xs[0]}"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
