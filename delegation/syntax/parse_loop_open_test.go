package syntax

import "testing"

func TestParseOpenLoop(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"max", "loop (max: 20):\n  call next_step", `(loop (max 20) (call next_step))`},
		{"max as", "loop (max: cfg.n) as k:\n  if k > 2:\n    break", `(loop (max (. cfg n)) as k (if (> k 2) (then (break))))`},
		{"no max", "loop:\n  break", `(loop (break))`},
		{"as only", "loop as k:\n  break", `(loop as k (break))`},
		// the other loops keep their forms
		{"while", "loop while x < 3 (max: 10):\n  x = x + 1", `(while (< x 3) (max 10) (= x (+ x 1)))`},
		{"loop as a name", "let loop = 1\nloop = loop + 1", "(let loop 1)\n(= loop (+ loop 1))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := parseOK(t, tc.code)
			if got := Dump(prog); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	w := parseOK(t, "loop (max: 2):\n  break").Body[0].(*WhileStmt)
	if b, ok := w.Cond.(*BoolLit); !w.Open || !ok || !b.Value {
		t.Errorf("open loop %+v", w)
	}
	if _, errs := ParseString("t.prose", "loop (max 3):\n  break"); len(errs) != 1 || errs[0].Code != "syntax/expected" {
		t.Errorf("a max without ':': %v", errs)
	}
}
