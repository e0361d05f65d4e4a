package cli

import (
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/run"
)

// --slot texts become typed run bindings in order; a text that does not
// parse, or does not read back as written, leaves them all as text for
// the binder to report as it always has.
func TestTypedSlots(t *testing.T) {
	as := []bind.Assignment{{Name: "a", Value: "exec:./a.sh"}, {Name: "b", Value: "llm:m1"}, {Name: "c", Value: "std/roles/critic.prose.md"}, {Name: "a", Value: "host"}}
	slots, rest := typedSlots(as)
	want := []run.Slot{{Name: "a", Binding: run.Exec{Command: "./a.sh"}}, {Name: "b", Binding: run.Model{Name: "m1"}},
		{Name: "c", Binding: run.Spec{Path: "std/roles/critic.prose.md"}}, {Name: "a", Binding: run.Host{}}}
	if len(rest) != 0 || len(slots) != len(want) {
		t.Fatalf("typedSlots = %v, %v", slots, rest)
	}
	for i := range want {
		if slots[i] != want[i] {
			t.Errorf("slot %d = %#v, want %#v", i, slots[i], want[i])
		}
	}
	for _, bad := range []string{"nonsense", "exec: ./a.sh", "go:f"} {
		in := append(append([]bind.Assignment(nil), as...), bind.Assignment{Name: "d", Value: bad})
		if slots, rest := typedSlots(in); slots != nil || len(rest) != len(in) {
			t.Errorf("with %q: %v, %v; want every slot left as text", bad, slots, rest)
		}
	}
}
