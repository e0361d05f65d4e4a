package spec

import (
	"slices"
	"testing"
)

// A name a slot's requires quotes that the Delegation binds as a loop's
// variable is that variable, not an input the caller must pass.
func TestLoopVariableIsNoImpliedInput(t *testing.T) {
	src := "---\nname: p\nkind: pattern\nversion: 0.15.0\n---\n\n# P\n\n### Slots\n\n- `worker`\n  - requires: `round`, `topic`\n\n### Delegation\n\n```prose\nrepeat 3 as round:\n  call worker\n    round: round\n    topic: topic\n```\n"
	s, diags := Parse("p.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := s.ImpliedInputs(); !slices.Equal(got, []string{"topic"}) {
		t.Errorf("implied inputs %q, want [topic]", got)
	}
	if got := s.ImpliedRequired(); !slices.Equal(got, []string{"topic"}) {
		t.Errorf("required %q, want [topic]", got)
	}
}

// So is a pipeline's item, and a reduce stage's accumulator.
func TestPipelineVariableIsNoImpliedInput(t *testing.T) {
	src := "---\nname: p\nkind: pattern\nversion: 0.15.0\n---\n\n# P\n\n### Slots\n\n- `merger`\n  - requires: `sofar`, `item`, `topic`\n\n### Delegation\n\n```prose\nlet all = topics | reduce(sofar, item):\n  call merger\n    sofar: sofar\n    item: item\n    topic: topic\nreturn all\n```\n"
	s, diags := Parse("p.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := s.ImpliedInputs(); !slices.Equal(got, []string{"topic"}) {
		t.Errorf("implied inputs %q, want [topic]", got)
	}
}
