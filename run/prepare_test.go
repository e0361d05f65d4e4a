package run_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/patterns/bind"
	"github.com/proselang/prose/patterns/service"
	"github.com/proselang/prose/run"
)

// Prepare binds and checks without running anything; Start runs, Wait
// gives the result; a Run runs once.
func TestPrepareStartWait(t *testing.T) {
	var calls atomic.Int32
	svc := &service.Func{Name: "w", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		calls.Add(1)
		return "done", nil
	}}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p.prose.md": "---\nname: p\nkind: pattern\n---\n\n# P\n\nCalls w.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nreturn call worker\n```\n"})
	req := run.Request{Spec: "p.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	o := run.Options{Services: map[string]service.Service{"w": svc}}
	r, err := run.Prepare(context.Background(), req, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err == nil {
		t.Error("Wait before Start returned no error")
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("Prepare made %d calls", n)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil || res.Value != "done" || calls.Load() != 1 {
		t.Fatalf("value %v, err %v, %d calls", res.Value, err, calls.Load())
	}
	if err := r.Start(context.Background()); err == nil {
		t.Error("a second Start ran")
	}
	req.Bindings.Slots = nil
	if _, err := run.Prepare(context.Background(), req, o); err == nil {
		t.Error("an unbound slot was prepared")
	}
}
