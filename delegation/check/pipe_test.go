package check_test

import (
	"testing"
)

// The checks of pipeline stages, each at its token: a pipeline variable
// read outside its body, a body that gives no value, continue/break,
// writes to the item or an outer name, an input that is no list.
func TestCheckPipelines(t *testing.T) {
	runCheckCases(t, []checkCase{
		{name: "a clean chain", slots: "s", inputs: "xs", code: "let ys = xs\n  | filter:\n      item > 1\n  | pmap:\n      call s\n        v: item\n  | reduce(acc, y):\n      acc + y\nreturn ys\n"},
		{name: "item read after the pipeline", inputs: "xs", code: "let ys = xs | map:\n  item\nreturn item\n",
			want: []string{"3:8 error check/undefined-name 'item' is the pipeline variable of the | map at line 1, which only its body reads"}},
		{name: "reduce's names read before it", inputs: "xs", code: "let a = acc\nlet ys = xs | reduce(acc, x):\n  acc + x\nreturn [a, ys]\n",
			want: []string{"1:9 error check/undefined-name 'acc' is the pipeline variable of the | reduce(acc, x) at line 2"}},
		{name: "item read in a reduce body", inputs: "xs", code: "let ys = xs | map:\n  item\nlet t = ys | reduce(acc, x):\n  acc + item\nreturn t\n",
			want: []string{"4:9 error check/undefined-name 'item': the body of | reduce(acc, x) at line 3 reads the item as x: a reduce names its accumulator and its item"}},
		{name: "a pipeline's list destructured", inputs: "xs", outputs: "out", code: "let {a} = xs | map:\n  item\nreturn {out: a}\n",
			want: []string{"1:6 error lint/unknown-member let {a}: the value is a list, not an object, so it has no key \"a\" (a run stops there)"}},
		{name: "an item bound outside", inputs: "xs", outputs: "out", code: "let item = 3\nlet ys = xs | map:\n  item + 1\nlet zs = ys | map:\n  item | map:\n    item\nreturn {out: [ys, zs]}\n",
			want: []string{"2:15 warning check/redeclared | map names each item item, which hides 'item' (line 1) in its body: rename that one", "4:15 warning check/redeclared"}},
		{name: "a body with no value", inputs: "xs", code: "let ys = xs | map:\n  let y = item\nreturn ys\n",
			want: []string{"1:15 warning check/pipe-no-value the body of | map gives no value for any item"}},
		{name: "a value in a choice's option is one", inputs: "xs", code: "let ys = xs | map:\n  choice best way for item:\n    option \"a\":\n      item\n    option \"b\":\n      let n = 0\nreturn ys\n"},
		{name: "a value in a branch is one", inputs: "xs", code: "let ys = xs | filter:\n  if item > 1:\n    return true\n  let n = 0\nreturn ys\n",
			want: []string{"3:5 warning check/pipe-return return in the body of | filter ends only this item"}},
		{name: "a return that ends only the item", inputs: "xs", outputs: "out",
			code: "let ys = xs | map:\n  if item.bad:\n    return {out: null}\n  item\nlet zs = xs | reduce(acc, x):\n  for y in x:\n    return y\n  acc + x\nreturn {out: [ys, zs]}\n",
			want: []string{
				"3:5 warning check/pipe-return return in the body of | map ends only this item, whose value it gives, and the stage goes on with the next item: to end the Execution, loop with for item in ...: (where return ends the run) or test the stage's result after it; to give the item's value, write it without return as the value of an if/else on the body's last line",
				"7:5 warning check/pipe-return return in the body of | reduce(acc, x) ends only this item",
			}},
		{name: "a reduce gives its items' shape", config: "nums:integer[] words:string[]", outputs: "out",
			code: "let a = [1, 2] | reduce(x, y):\n  x + y\nlet b = nums\n  | map:\n      item + 1\n  | filter:\n      item > 2\n  | reduce(x, y):\n      return x + y\nlet c = words | reduce(x, y):\n  x + \" \" + y\nlet d = [{k: 1}, {k: 2}] | reduce(x, y):\n  x\nreturn {out: [a.total, b.total, c.total, d.kk]}\n",
			want: []string{
				"14:17 error lint/unknown-member a has no member \"total\": a is an integer, not an object",
				"14:26 error lint/unknown-member b has no member \"total\": b is an integer",
				"14:35 error lint/unknown-member c has no member \"total\": c is text",
				"14:44 error lint/unknown-member d has no member \"kk\": it is an object of k",
			}},
		{name: "a reduce whose shape is not known", config: "nums:integer[]", inputs: "xs", outputs: "out",
			code: "let a = nums | reduce(x, y):\n  \"{x},{y}\"\nlet b = nums | reduce(x, y):\n  if y > 2:\n    return \"big\"\n  x + y\nlet c = xs | reduce(x, y):\n  x + y\nlet d = [1, \"a\"] | reduce(x, y):\n  x\nlet e = nums | map:\n  let z = item\n  z\n| reduce(x, y):\n  x + y\nreturn {out: [a.total, b.total, c.total, d.total, e.total]}\n",
			want: []string{"5:5 warning check/pipe-return"}},
		{name: "a return that ends something else", inputs: "xs", outputs: "out",
			code: "block f(x):\n  if x:\n    return 1\n  2\nlet ys = xs | map:\n  let a = do:\n    if item:\n      return 1\n    2\n  let b = for y in item:\n    if y:\n      return y\n    0\n  let c = do f(item)\n  return [a, b, c]\nreturn {out: ys}\n"},
		{name: "continue in a body", inputs: "xs", code: "for x in xs:\n  let ys = xs | map:\n    if item:\n      continue\n    item\n",
			want: []string{"4:7 error check/branch-outside-loop continue cannot leave a pipeline stage's body"}},
		{name: "continue in a loop in a body", inputs: "xs", code: "let ys = xs | map:\n  for y in item:\n    continue\n  item\nreturn ys\n"},
		{name: "the item assigned", inputs: "xs", code: "let ys = xs | map:\n  item = 1\n  item\nreturn ys\n",
			want: []string{"2:3 error check/const-assign 'item' is the pipeline variable of the stage at line 1, read-only in its body"}},
		{name: "the accumulator rebound", inputs: "xs", code: "let ys = xs | reduce(acc, x):\n  let acc = acc + x\n  acc\nreturn ys\n",
			want: []string{"2:7 error check/const-assign 'acc' is the pipeline variable of the stage at line 1"}},
		{name: "an outer name assigned", inputs: "xs", code: "let n = 0\nlet ys = xs | map:\n  n = item\n  item\nreturn [n, ys]\n",
			want: []string{"3:3 error check/parallel-assign a pipeline stage's body assigns the outer 'n'; each item's body has a scope of its own, and pmap runs them at once: give the item's value and fold the values with a later stage, | reduce(acc, x):"}},
		{name: "an input that is no list", code: "let ys = \"a, b\" | map:\n  item\nreturn ys\n",
			want: []string{"1:19 error check/type-mismatch | map cannot run over its input: it is text"}},
		{name: "with blocks", code: "block double(xs):\n  return xs | map:\n    item + item\nlet ys = [1, 2] | map:\n  do:\n    let t = item + 1\n    t\nlet d = do double(ys)\nreturn d\n"},
		{name: "continue in a stage in a block", code: "let r = do:\n  let ys = [1] | map:\n    continue\n    item\n  ys\nreturn r\n",
			want: []string{"3:5 error check/branch-outside-loop continue cannot leave a pipeline stage's body"}},
		{name: "a reduce's value is no list", inputs: "xs", code: "let ys = xs | reduce(a, b):\n  a + b\n| map:\n  item\nreturn ys\n"},
	})
}
