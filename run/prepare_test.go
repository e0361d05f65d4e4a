package run_test

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
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

// markedCtx is a context of its own type, as an engine's is (a Temporal
// workflow's): a run under RunHere must hand it to services as it is.
type markedCtx struct{ context.Context }

type noGates struct{}

func (noGates) Gate(context.Context, *delegation.CallRequest, *delegation.Gate) (delegation.Value, error) {
	return nil, errors.New("no gate here")
}

// A deterministic run reads nothing of the process: not its environment
// (a model named there without a key would be refused), not its disk
// (the spec comes from Files), and RunHere runs it under the caller's
// context itself; the options it cannot honour are refused.
func TestDeterministicRunHere(t *testing.T) {
	t.Setenv("PROSE_MODEL", "gpt-test")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	var calls, marked atomic.Int32
	svc := &service.Func{Name: "w", Fn: func(ctx context.Context, _ *delegation.CallRequest) (delegation.Value, error) {
		calls.Add(1)
		if _, ok := ctx.(markedCtx); ok {
			marked.Add(1)
		}
		return "done", nil
	}}
	files := fstest.MapFS{"p.prose.md": {Data: []byte("---\nname: p\nkind: pattern\n---\n\n# P\n\nCalls w.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nreturn call worker\n```\n")}}
	req := run.Request{Spec: "p.prose.md", Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	o := run.Options{Deterministic: true, Files: files, Gates: noGates{}, Services: map[string]service.Service{"w": svc}}

	if _, err := run.Prepare(context.Background(), req, run.Options{Services: o.Services}); err != nil {
		// the local assembly reads PROSE_MODEL and refuses it without a key
		t.Logf("the local assembly: %v", err)
	} else {
		t.Fatal("the environment's model without a key was not refused: the test does not test what it says")
	}
	r, err := run.Prepare(context.Background(), req, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); run.CodeOf(err) != run.CodeUsage {
		t.Errorf("Start of a deterministic run: %v", err)
	}
	res, err := r.RunHere(markedCtx{context.Background()})
	if err != nil || res.Value != "done" {
		t.Fatalf("value %v, err %v", res.Value, err)
	}
	if calls.Load() != 1 || marked.Load() != 1 || res.Totals.Calls != 1 {
		t.Errorf("%d calls, %d under the caller's context, totals %+v", calls.Load(), marked.Load(), res.Totals)
	}
	if _, err := r.RunHere(context.Background()); run.CodeOf(err) != run.CodeUsage {
		t.Errorf("a second RunHere: %v", err)
	}

	for name, bad := range map[string]run.Options{
		"a journal": {Deterministic: true, Files: files, RunDir: t.TempDir()},
		"a trace":   {Deterministic: true, Files: files, Trace: io.Discard},
		"no files":  {Deterministic: true},
		"no gates":  {Deterministic: true, Files: files},
	} {
		bad.Services = o.Services
		r, err := run.Prepare(context.Background(), req, bad)
		if err == nil {
			_, err = r.RunHere(context.Background())
		}
		if run.CodeOf(err) != run.CodeUsage {
			t.Errorf("%s: %v", name, err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("a refused run made calls (%d in all)", calls.Load())
	}
}
