package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/telemetry"
)

const shipSpec = "---\nname: ship\nkind: pattern\n---\n\n# Ship\n\nAsks which release, then ships it.\n\n### Slots\n\n- `shipper`\n\n### Delegation\n\n```prose\n" +
	"let prepared = call shipper\n  step: \"prepare\"\n" +
	"let release = ask_user \"Which release?\"\n" +
	"let verdict = gate { summary: release, options: [\"ship\", \"hold\"] }\n" +
	"let shipped = call shipper\n  step: release\n" +
	"return { release, verdict, shipped }\n```\n"

// A run that waits at a gate, is resumed and waits at a second, then is
// resumed and fails: one trace (the run id's), no span in Error before
// the failure, each wait said by an attribute and an event, and the
// failure's error.type a prose code, not a Go type.
func TestGateWaitsAreOneTraceAndNoError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ship.prose.md"), []byte(shipSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	shipper := &service.Func{Name: "shipper", Fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		if step, _ := req.Args.Get("step"); step != "prepare" {
			return nil, errors.New("the release server is down")
		}
		return "prepared", nil
	}}
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem), sdktrace.WithIDGenerator(telemetry.IDGenerator()))
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]service.Service{"s": shipper},
		Telemetry: telemetry.New(tp, telemetry.Options{})}
	req := run.Request{Spec: "ship.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "shipper", Value: "go:s"}}}}
	ctx := context.Background()
	answer := func(id, gate, value string) {
		t.Helper()
		if _, err := journal.Answer(opts.RunDir, id, gate, json.RawMessage(value), journal.Options{Now: time.Now}); err != nil {
			t.Fatal(err)
		}
	}

	res, err := run.Local{}.Run(ctx, req, opts)
	if delegation.Waiting(err) == nil {
		t.Fatalf("run: %v, want a wait at the first gate", err)
	}
	id := res.RunID
	sessions := [][]tracetest.SpanStub{mem.GetSpans()}
	mem.Reset()
	answer(id, "", `"v1.2"`)
	if _, err = run.Resume(ctx, id, opts); delegation.Waiting(err) == nil {
		t.Fatalf("first resume: %v, want a wait at the second gate", err)
	}
	sessions = append(sessions, mem.GetSpans())
	mem.Reset()
	answer(id, "L20", `{"choice":"ship"}`)
	if _, err = run.Resume(ctx, id, opts); err == nil || delegation.Waiting(err) != nil {
		t.Fatalf("second resume: %v, want the shipper's failure", err)
	}
	sessions = append(sessions, mem.GetSpans())

	want := telemetry.RunTraceID(id)
	for i, spans := range sessions {
		roots := 0
		for _, s := range spans {
			if s.SpanContext.TraceID() != want {
				t.Errorf("session %d: span %s in trace %s, want the run's %s", i, s.Name, s.SpanContext.TraceID(), want)
			}
			if !s.Parent.IsValid() {
				roots++
			}
			if i < 2 && s.Status.Code == codes.Error {
				t.Errorf("session %d (a wait): span %s has Error status %q", i, s.Name, s.Status.Description)
			}
		}
		root := one(t, spans, "invoke_workflow ship")
		ra := attrs(root)
		if i < 2 {
			waited := false
			for _, e := range root.Events {
				waited = waited || e.Name == telemetry.EventGateWaiting
			}
			if !ra[telemetry.RunWaiting].AsBool() || !waited {
				t.Errorf("session %d: run span %v, events %v: want prose.run.waiting and a %s event", i, ra, root.Events, telemetry.EventGateWaiting)
			}
			gate := one(t, spans, []string{"call ask_user", "call gate"}[i])
			if a := attrs(gate); a[telemetry.CallOutcome].AsString() != "waiting" || len(gate.Events) != 1 || gate.Events[0].Name != telemetry.EventGateWaiting {
				t.Errorf("session %d: gate span %v, events %v: want outcome waiting and its event", i, a, gate.Events)
			}
		} else {
			if root.Status.Code != codes.Error || ra[telemetry.ErrorType].AsString() != "failed" {
				t.Errorf("failed session: run span status %v, error.type %q; want Error and \"failed\"", root.Status, ra[telemetry.ErrorType].AsString())
			}
			for _, s := range byName(t, spans, "call shipper") {
				a := attrs(s)
				if s.Status.Code == codes.Error && a[telemetry.ErrorType].AsString() != "failed" {
					t.Errorf("failed call's error.type %q, want a prose code", a[telemetry.ErrorType].AsString())
				}
			}
		}
		if roots != 1 {
			t.Errorf("session %d: %d root spans, want 1", i, roots)
		}
	}
}
