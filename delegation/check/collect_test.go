package check_test

import "testing"

// An iteration of a kept collecting loop or a map stage that gives null
// with no value written for it is a warning: continue puts null in the
// item's place (rule 9), as does an if with a value on some branches
// only. A first loop keeps one iteration, a statement loop no list, and
// a written null says it was meant.
func TestCheckCollectNull(t *testing.T) {
	runCheckCases(t, []checkCase{
		{name: "continue in a kept loop", inputs: "xs",
			code: "let ys = for x in xs:\n  if x < 0:\n    continue\n  x\nreturn ys",
			want: []string{"3:5 warning check/collect-null continue gives null to the list the loop collects, in this item's place, not leaving it out"}},
		{name: "an if without else last in a kept repeat",
			code: "let ys = repeat 3 as i:\n  if i > 1:\n    i\nreturn ys",
			want: []string{"2:3 warning check/collect-null an item that takes no branch of this if that gives a value gives null to the list the loop collects"}},
		{name: "an if without else last in a map stage", inputs: "xs",
			code: "let ys = xs\n  | map:\n      if item > 0:\n        item\nreturn ys",
			want: []string{"3:7 warning check/collect-null an item that takes no branch of this if that gives a value gives null to the list | map makes"}},
		{name: "an if without else in a filter stage", inputs: "xs",
			code: "let ys = xs | filter:\n  if item > 0:\n    true\nreturn ys",
			want: []string{"2:3 warning check/collect-null an item that takes no branch of this if that gives a value gives null to | filter, which refuses it at run time: end every branch with true or false"}},
		{name: "a try whose catch gives nothing", slots: "w", inputs: "xs",
			code: "let ys = for x in xs:\n  try:\n    call w\n  catch:\n    let e = 1\nreturn ys",
			want: []string{"2:3 warning check/collect-null an item whose try or catch gives no value"}},
		{name: "values on every path, a written null, loops whose list is not kept", inputs: "xs",
			code: "let ys = for x in xs:\n  if x > 0:\n    x\n  else:\n    return null\nfor x in xs:\n  if x < 0:\n    continue\nlet w = parallel first for x in xs:\n  if x > 0:\n    return x\nlet zs = for x in xs:\n  for y in xs:\n    if y < 0:\n      continue\n  x\nreturn [ys, w, zs]"},
	})
}

// An Execution that returns on some paths only is a warning at its last
// statement: a run on another path fails at the end. Every path ending
// (an else, a try's catch that throws, a return after the if) is clean.
func TestCheckMissingReturn(t *testing.T) {
	cases := []checkCase{
		{name: "an if with no else last", inputs: "x", outputs: "out",
			code: "if x == 1:\n  return { out: 1 }",
			want: []string{"1:1 warning check/missing-return a run that gets past this statement reaches the end of the Execution without a return, and fails there (it declares out)"}},
		{name: "a return in a loop only", inputs: "xs", outputs: "out",
			code: "for x in xs:\n  return { out: x }",
			want: []string{"1:1 warning check/missing-return"}},
		{name: "every path ends", inputs: "x", outputs: "out",
			code: "if x == 1:\n  return { out: 1 }\nelif x == 2:\n  throw \"two\"\nelse:\n  try:\n    return { out: 3 }\n  catch:\n    throw"},
		{name: "a return after the if", inputs: "x", outputs: "out",
			code: "if x == 1:\n  return { out: 1 }\nreturn { out: 2 }"},
	}
	for i := range cases {
		cases[i].returnRule = true
	}
	runCheckCases(t, cases)
}
