package callgraph

import (
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/spec"
)

// A called node's inputs: one passed as null is its absence and takes
// its default; a run-typed input's default names a run, which a call
// cannot read, so not passing it is an error, never null (lint says so
// before a run, lint/missing-argument; this is the run's own guard).
func TestNodeGlobalsDefaults(t *testing.T) {
	src := "---\nname: peek\nkind: function\n---\n\n# Peek\n\n### Parameters\n\n" +
		"- `text`: the text\n- `width` (integer, default: 3): marks\n- `prev` (run, default: \"20260101T000000-abcdef\"): an earlier run\n\n" +
		"### Returns\n\n- `out`: what it saw\n\n### Execution\n\n```prose\nreturn { out: text }\n```\n"
	n, diags := spec.Parse("peek.prose.md", []byte(src))
	if n == nil || diags.HasErrors() {
		t.Fatalf("parse: %v", diags)
	}
	args := delegation.NewObject()
	args.Set("text", "x")
	args.Set("width", nil)
	_, err := nodeGlobals(n, args, nil)
	if err == nil || !strings.Contains(err.Error(), "peek needs prev") {
		t.Fatalf("prev not passed: %v, want an error naming prev", err)
	}
	args.Set("prev", "20260101T000000-abcdef")
	g, err := nodeGlobals(n, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := g["width"].(int64); !ok || w != 3 {
		t.Errorf("width passed as null = %#v, want its default 3", g["width"])
	}
}
