package delegation

import (
	"context"
	"testing"

	"github.com/proselang/prose/delegation/syntax"
)

// FuzzRun runs any program that parses, against a service that echoes,
// a judge that answers by the parity of its id, and a small step budget:
// the evaluator must return a value or an *Error, never panic or hang, and
// the value must encode or fail to, without exhausting the stack.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"let x = 1\nrepeat 3 as i:\n  let x = x + i\nreturn x\n",
		"let a = parallel for x in [1, 2]:\n  try:\n    return call s\n      x: x\n      retries 1\n  catch as e:\n    return e\nreturn a\n",
		"let w = parallel first repeat 3 as k:\n  if k == 2:\n    return k\nreturn w\n",
		"loop until v accepts it (max: 3) as k:\n  let v = call s\n    k: k\nreturn [1][0] + \"a\"\n",
		"parallel:\n  let a = call s\n  let b = [1, 2][1]\nreturn { a, b }\n",
		"for x, i in [null, {}]:\n  append x.y to xs\nreturn xs.length - 1\n",
		"append xs to xs\nlet r = call s\n  xs: xs\nreturn xs == xs\n",
		"let o = {}\no[\"k\"] = o\nreturn [o]\n",
		"parallel (\"any\", count: 2, on-fail: \"continue\"):\n  let a = call s\n  let b = [1, 2][5]\n  let c = call s\nreturn [a, b, c]\n",
		"parallel (\"first\", on-fail: \"ignore\"):\n  let a = call s\n  let b = call s\nlet {x, y} = {x: a, y: b}\nreturn x\n",
		"loop for each x, i in [1, 2] (max: 2):\n  append x to xs\nreturn xs\n",
		"let ys = [1, 2, 3]\n  | filter:\n      item > 1\n  | pmap:\n      call s\n        v: item\n  | reduce(a, b):\n      [a, b]\nreturn ys\n",
		"let r = do:\n  let t = call s\n  return t\nlet q = do f(r, 1)\nreturn [r, q]\nblock f(a, n):\n  if n < 3:\n    return do f(a, n + 1)\n  a\n",
		"block g(x):\n  do g(x)\nlet xs = parallel for x in [1, 2]:\n  do:\n    do g(x)\nreturn xs\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		prog, errs := syntax.ParseString("fuzz.md", code)
		if errs.HasErrors() {
			return
		}
		host := &Host{
			Caller: instant{},
			Judge: judgeFunc(func(j *Judgment) (Verdict, error) {
				return Verdict{Holds: len(j.Path.Key())%2 == 0}, nil
			}),
			Runtime:     newFakeRuntime(),
			MaxSteps:    2000,
			MaxParallel: 2,
		}
		g := map[string]Value{"s": svc("s"), "xs": NewList(), "v": nil}
		v, err := Run(context.Background(), prog, g, host)
		// The result must encode or fail to, cleanly (a value may contain
		// itself).
		_, _ = ToJSON(v)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
	})
}
