package check_test

import (
	"testing"
)

func TestCheckOpenLoop(t *testing.T) {
	cases := []checkCase{
		{name: "break ends it", slots: "step", outputs: "out",
			code: "loop (max: 20) as k:\n  let r = call step\n  if r.done:\n    break\nreturn { out: k }\n"},
		{name: "return ends it", slots: "step", outputs: "out",
			code: "loop (max: 20):\n  let r = call step\n  if r.done:\n    return { out: r }\nreturn { out: null }\n"},
		{name: "a return in a statement loop ends it", slots: "step", inputs: "xs", outputs: "out",
			code: "loop (max: 3):\n  for x in xs:\n    return { out: x }\nreturn { out: null }\n"},
		{name: "nothing ends it", slots: "step", outputs: "out",
			code: "loop (max: 20):\n  call step\nreturn { out: 1 }\n",
			want: []string{"1:1 error check/open-loop write repeat N: for N passes"}},
		// a break of a loop nested in it ends that loop, not this one;
		// a return in a collected loop ends that loop's iteration
		{name: "an inner break does not end it", slots: "step", inputs: "xs", outputs: "out",
			code: "loop (max: 20):\n  for x in xs:\n    break\n  let ys = for x in xs:\n    return x\nreturn { out: 1 }\n",
			want: []string{"1:1 error check/open-loop"}},
		{name: "no max", slots: "step", outputs: "out",
			code: "loop:\n  let r = call step\n  if r.done:\n    break\nreturn { out: 1 }\n",
			want: []string{"1:1 error check/unbounded-loop loop has no bound: add (max: N)"}},
		{name: "max 0", slots: "step", outputs: "out",
			code: "loop (max: 0):\n  break\nreturn { out: 1 }\n",
			want: []string{"1:12 error check/loop-count"}},
	}
	runCheckCases(t, cases)
}
