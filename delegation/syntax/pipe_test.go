package syntax

import (
	"strings"
	"testing"
)

// The layouts of a pipeline: stages on the value's line, on the lines
// after it at its indentation or indented under it (upstream's), after a
// call with or without arguments; a chain nests to the left.
func TestParsePipelines(t *testing.T) {
	for _, tc := range []struct{ name, code, want string }{
		{"same line", "let ys = xs | map:\n  item + 1\nreturn ys",
			"(let ys (pipe-map xs (+ item 1)))\n(return ys)"},
		{"upstream's layout", "let s = articles\n  | filter:\n      call check\n        article: item\n  | pmap:\n      item.title\n  | reduce(all, t):\n      all + t\nreturn s",
			"(let s (pipe-reduce all,t (pipe-pmap (pipe-filter articles (call check (arg article item))) (. item title)) (+ all t)))\n(return s)"},
		{"at the let's level", "let ys = xs\n| map:\n  item\n| filter:\n  item\nreturn ys",
			"(let ys (pipe-filter (pipe-map xs item) item))\n(return ys)"},
		{"after a call's arguments", "let ys = call lister\n  topic: t\n  | map:\n    item\nreturn ys",
			"(let ys (pipe-map (call lister (arg topic t)) item))\n(return ys)"},
		{"after a call without arguments", "let ys = call lister\n  | map:\n    item\nreturn ys",
			"(let ys (pipe-map (call lister) item))\n(return ys)"},
		{"an argument's own", "call f\n  xs: ys | map:\n    item\n  n: 1",
			"(call f (arg xs (pipe-map ys item)) (arg n 1))"},
		{"return and assignment", "ys = xs | map:\n  item\nreturn ys | filter:\n  item",
			"(= ys (pipe-map xs item))\n(return (pipe-filter ys item))"},
		{"a statement", "xs | map:\n  call s\n    v: item\nreturn 1",
			"(pipe-map xs (call s (arg v item)))\n(return 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := parseOK(t, tc.code)
			if got := Dump(prog); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// The item, reduce's names and the body's names are slots of the
// stage's own frame, as a parallel iteration's are.
func TestResolvePipeScopes(t *testing.T) {
	prog := parseOK(t, "let ys = xs | reduce(acc, x):\n  let t = acc + x\n  t\nreturn ys")
	p := prog.Body[0].(*LetStmt).Value.(*PipeExpr)
	if got := strings.Join(p.Loop.Frame.Names, " "); got != "acc x t" {
		t.Errorf("the stage's names: %q, want %q", got, "acc x t")
	}
	if p.Loop.Parallel || p.Op != PipeReduce || p.Acc.Name != "acc" || p.Item().Name != "x" {
		t.Errorf("stage %+v", p)
	}
	if b := p.Acc.Binding; b.Scope != Local || b.Index != 0 {
		t.Errorf("acc's binding %+v, want the stage frame's slot 0", b)
	}
	if n := len(prog.Loops()); n != 1 {
		t.Errorf("Loops: %d, want the stage's", n)
	}
}

func TestParsePipeErrors(t *testing.T) {
	for _, tc := range []struct{ name, code, want, msg string }{
		{"unknown operation", "let x = xs | mapp:\n  item", "1:14 [syntax/pipe-op]", "unknown pipeline operation 'mapp'; did you mean map?"},
		{"another language's name", "let x = xs | where:\n  item", "1:14 [syntax/pipe-op]", "did you mean filter?"},
		{"fold", "let x = xs | fold:\n  item", "1:14 [syntax/pipe-op]", "did you mean reduce(acc, item)?"},
		{"a bar for or", "let x = a | b", "1:13 [syntax/pipe-op]", "a logical or is written 'or'"},
		{"reduce without names", "let x = xs | reduce:\n  item", "1:20 [syntax/pipe-reduce]", "| reduce(acc, item):"},
		{"reduce with one name", "let x = xs | reduce(total):\n  total", "1:26 [syntax/pipe-reduce]", "found only total: | reduce(total, item):"},
		{"reduce with one name twice", "let x = xs | reduce(a, a):\n  a", "1:24 [syntax/pipe-reduce]", "both named a"},
		{"names for map", "let x = xs | map(x):\n  x", "1:17 [syntax/pipe]", "its body reads each item as item"},
		{"no operation", "let x = xs |\n  item", "1:13 [syntax/pipe]", "expected a pipeline operation after '|'"},
		{"body on the line", "let x = xs | map: item", "1:19 [syntax/expected]", "following lines, indented"},
		{"a stray line", "let x = xs\n  | map:\n    item\n  y = 1", "4:3 [syntax/pipe]", "each line under it starts a stage with '|'"},
		{"a stage after a loop", "let ys = for x in xs:\n  x\n| map:\n  item", "3:1 [syntax/pipe]", "a loop's value is piped by its name"},
		{"a stage between the levels", "let x = xs\n  | map:\n      item\n    | reduce(a, b):\n        a", "4:5 [syntax/indent]", "this '|' is indented to no level of the lines above it: start each stage of a pipeline where the first starts"},
		{"a stage under a first on the value's line", "let x = xs | map:\n    item\n  | filter:\n      item", "3:3 [syntax/indent]", "at the statement's indentation when the first '|' follows the value on its line"},
		{"a bar in a condition", "if a | b:\n  y = 1", "1:6 [syntax/expected]", "write 'or'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := ParseString("t.prose", tc.code)
			if len(errs) != 1 {
				t.Fatalf("want one diagnostic, got %d:\n%s", len(errs), errs)
			}
			d := errs[0]
			got := strings.TrimPrefix(d.Position.String(), "t.prose:") + " [" + d.Code + "]"
			if got != tc.want || !strings.Contains(d.Message, tc.msg) {
				t.Errorf("got  %s %s\nwant %s, a message with %q", got, d.Message, tc.want, tc.msg)
			}
		})
	}
}
