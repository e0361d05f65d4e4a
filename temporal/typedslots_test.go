package temporal

import (
	"context"
	"errors"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/run"
)

// A Request's typed bindings travel to the workers as their text, after
// those given as text; a Go function is refused before anything starts.
func TestResolveCarriesTypedSlots(t *testing.T) {
	req := run.Request{Spec: "std/patterns/guard.prose.md",
		Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "guard", Value: `exec:echo '{"proceed": true}'`}},
			Inputs: []bind.Assignment{{Name: "task_brief", Value: "launch"}}},
		Slots: []run.Slot{{Name: "target", Binding: run.Exec{Command: `echo '"launched"'`}}}}
	treq, err := (&Engine{}).resolve(req, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := treq.Bindings.Slots
	if len(got) != 2 || got[0].Name != "guard" || got[1] != (bind.Assignment{Name: "target", Value: `exec:echo '"launched"'`}) {
		t.Errorf("slots %v, want guard then the typed target as text", got)
	}
	req.Slots = []run.Slot{{Name: "target", Binding: run.Func{Name: "f", Fn: func(context.Context, map[string]any) (any, error) { return nil, nil }}}}
	if _, err := (&Engine{}).resolve(req, run.Options{}); !errors.As(err, new(*run.UsageError)) {
		t.Errorf("a run.Func on Temporal: %v, want a usage error", err)
	}
}
