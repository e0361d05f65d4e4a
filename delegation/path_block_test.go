package delegation

import (
	"slices"
	"testing"
)

// Inside a named block, each invocation's do comes first, ending in ':'
// (semantics.md 38): the line is the call's own, the iterations those of
// every loop around it, the do's included.
func TestPathInBlocks(t *testing.T) {
	for _, c := range []struct {
		key    string
		depth  int
		att    int
		line   int
		iters  []int
		inLoop bool
	}{
		{"L20:L7", 0, 1, 7, nil, false},
		{"L20/2:L7", 0, 1, 7, []int{2}, true},
		{"L20/2:L7/1/3", 0, 1, 7, []int{2, 1, 3}, true},
		{"L24:L36:L28#2", 0, 2, 28, nil, false},
		{"L5/1>L20:L7", 1, 1, 7, nil, true},
	} {
		p, err := ParsePath(c.key)
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		if p.Depth() != c.depth || p.Attempt() != c.att || p.Line() != c.line || !slices.Equal(p.Iterations(), c.iters) || p.InLoop() != c.inLoop {
			t.Errorf("%s: depth %d attempt %d line %d iterations %v in loop %v", c.key, p.Depth(), p.Attempt(), p.Line(), p.Iterations(), p.InLoop())
		}
	}
	for _, s := range []string{"L20:", ":L7", "L20::L7", "L20:x", "L20#2:L7", "L20:L7:"} {
		if p, err := ParsePath(s); err == nil {
			t.Errorf("ParsePath(%q) = %q, want an error", s, p)
		}
	}
	// a do is no call: what its block calls is not in a nested run of it
	if MustParsePath("L20/2:L7").Within(MustParsePath("L20/2")) || !MustParsePath("L20/2:L7>L3").Within(MustParsePath("L20/2:L7")) {
		t.Errorf("Within of block paths")
	}
}
