package spec

import (
	"slices"
	"testing"
)

func TestSlotArguments(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: what, optional\n- `style`: how\n\n### Returns\n\n- `draft`: text\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		keys                      []string
		unknown, leftOut, require []string
	}{
		// every parameter filled: an extra argument is context
		{[]string{"topic", "style", "prompt"}, nil, nil, nil},
		// a name that differs: reported, with what the call leaves out
		{[]string{"brief", "style"}, []string{"brief"}, []string{"topic"}, nil},
		{[]string{"topic"}, nil, []string{"style"}, []string{"style"}},
		{nil, nil, []string{"topic", "style"}, []string{"style"}},
	} {
		u, l, r := s.SlotArguments(tc.keys)
		if !slices.Equal(u, tc.unknown) || !slices.Equal(l, tc.leftOut) || !slices.Equal(r, tc.require) {
			t.Errorf("%v: got %v %v %v, want %v %v %v", tc.keys, u, l, r, tc.unknown, tc.leftOut, tc.require)
		}
	}
	none, _ := Parse("g.prose.md", []byte("---\nname: g\nkind: function\n---\n\n### Returns\n\n- `draft`: text\n"))
	if u, l, r := none.SlotArguments([]string{"x"}); u != nil || l != nil || r != nil {
		t.Errorf("a function without parameters takes any arguments: %v %v %v", u, l, r)
	}
}
