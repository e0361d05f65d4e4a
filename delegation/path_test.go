package delegation

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestPathParts(t *testing.T) {
	for _, c := range []struct {
		key    string
		depth  int
		parent string
		att    int
		line   int
		iters  []int
		inLoop bool
	}{
		{"L58", 0, "", 1, 58, nil, false},
		{"L58/3", 0, "", 1, 58, []int{3}, true},
		{"L12/2/1", 0, "", 1, 12, []int{2, 1}, true},
		{"L58/3>L12", 1, "L58/3", 1, 12, nil, true},
		{"L58/3#2>L12/2", 1, "L58/3#2", 1, 12, []int{2}, true},
		{"L5>L9#3", 1, "L5", 3, 9, nil, false},
		{"L1>L2>L3/4", 2, "L1>L2", 1, 3, []int{4}, true},
	} {
		p, err := ParsePath(c.key)
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		if p.Key() != c.key || p.String() != c.key {
			t.Errorf("%s: key %q", c.key, p.Key())
		}
		if p.Depth() != c.depth || p.Parent().Key() != c.parent || p.Attempt() != c.att || p.Line() != c.line ||
			!slices.Equal(p.Iterations(), c.iters) || p.InLoop() != c.inLoop {
			t.Errorf("%s: depth %d parent %q attempt %d line %d iterations %v in loop %v", c.key,
				p.Depth(), p.Parent(), p.Attempt(), p.Line(), p.Iterations(), p.InLoop())
		}
	}
}

func TestParsePathRefuses(t *testing.T) {
	for _, s := range []string{"x", "L", "L0", "L01", "L5/", "L5/0", "L5//2", "L5#1", "L5#x", "L5>", ">L5", "L5/2>x", "L5 ", "expect"} {
		if p, err := ParsePath(s); err == nil {
			t.Errorf("ParsePath(%q) = %q, want an error", s, p)
		}
	}
	if p, err := ParsePath(""); err != nil || !p.IsZero() {
		t.Errorf("ParsePath(\"\") = %q, %v: want the zero Path", p, err)
	}
}

func TestPathTryAndWithin(t *testing.T) {
	call := MustParsePath("L5/2")
	if call.Try(1) != call || call.Try(3).Key() != "L5/2#3" || call.Try(3).Try(2).Key() != "L5/2#2" || call.Try(3).Call() != call {
		t.Errorf("Try: %q %q %q", call.Try(1), call.Try(3), call.Try(3).Try(2))
	}
	req := &CallRequest{Path: call, Attempt: 2}
	inner := pathAt(req.NestedScope(), 9, "/1")
	if inner.Key() != "L5/2#2>L9/1" || inner.Parent() != call.Try(2) || inner.Parent().Call() != call {
		t.Errorf("nested path %q, parent %q", inner, inner.Parent())
	}
	for key, want := range map[string]bool{
		"L5/2>L9": true, "L5/2#2>L9/1": true, "L5/2>L9>L1": true,
		"L5/2": false, "L5/2#2": false, "L5/21>L9": false, "L5/2/1>L9": false, "L5>L9": false, "L9>L5/2>L1": false,
	} {
		if got := MustParsePath(key).Within(call); got != want {
			t.Errorf("%s within %s: %v", key, call, got)
		}
	}
	if pathAt(Path{}, 7, "") != MustParsePath("L7") {
		t.Errorf("a top-level path")
	}
}

// A Path is written as its key and read back checked; the zero Path is
// left out of a record.
func TestPathJSON(t *testing.T) {
	type rec struct {
		ID Path `json:"id,omitzero"`
	}
	b, err := json.Marshal(rec{MustParsePath("L12/2>L5")})
	if err != nil || string(b) != `{"id":"L12/2>L5"}` && string(b) != `{"id":"L12/2\u003eL5"}` {
		t.Fatalf("%s %v", b, err)
	}
	var back rec
	if err := json.Unmarshal(b, &back); err != nil || back.ID.Key() != "L12/2>L5" {
		t.Errorf("%q %v", back.ID, err)
	}
	if b, _ := json.Marshal(rec{}); string(b) != `{}` {
		t.Errorf("zero: %s", b)
	}
	if err := json.Unmarshal([]byte(`{"id":"L1/x"}`), &back); err == nil {
		t.Errorf("an invalid path was read")
	}
}
