package delegation

import "testing"

// An open loop runs its body until a break or a return, at most max
// times, and ends quietly at the max as loop while/until do; k counts
// the iterations from 1.
func TestOpenLoop(t *testing.T) {
	got := mustRun(t, "let seen = []\nloop (max: 10) as k:\n  append k to seen\n  if k == 3:\n    break\nreturn seen\n", nil, nil)
	if got != `[1,2,3]` {
		t.Errorf("break: got %s", got)
	}
	got = mustRun(t, "loop (max: 10) as k:\n  if k == 4:\n    return k + 10\nreturn 0\n", nil, nil)
	if got != `14` {
		t.Errorf("return: got %s", got)
	}
	got = mustRun(t, "let n = 0\nloop (max: 5):\n  n = n + 1\n  if n > 99:\n    break\nreturn n\n", nil, nil)
	if got != `5` {
		t.Errorf("max: got %s", got)
	}
	e := runErr(t, "loop:\n  break\n", nil, nil)
	wantErr(t, e, "test.md:1:1: loop without (max: N) refused")
	e = runErr(t, "let m = 0\nloop (max: m):\n  break\n", nil, nil)
	wantErr(t, e, "test.md:2:12:")
}
