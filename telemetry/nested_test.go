package telemetry_test

import (
	"context"
	"errors"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/telemetry"
)

// The calls of a nested spec's run go under the attempt of the call that
// ran it (its second attempt here, whose scope is "L5#2>"), not under the
// run, and a timeout is the call's outcome and error.type.
func TestNestedCallsUnderTheirAttempt(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tr := telemetry.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem)), telemetry.Options{})
	r := tr.Start(context.Background(), telemetry.RunInfo{Spec: "outer.prose.md", Mode: "live"})
	r.Started("outer", "", nil)
	r.Record(&delegation.Event{Kind: "call.start", Path: delegation.MustParsePath("L5"), Slot: "target", Attempt: 1})
	r.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L5"), Slot: "target", Attempt: 1, Err: errors.New("boom")})
	r.Record(&delegation.Event{Kind: "call.start", Path: delegation.MustParsePath("L5"), Slot: "target", Attempt: 2})
	r.Record(&delegation.Event{Kind: "call.start", Path: delegation.MustParsePath("L5#2>L3"), Slot: "inner", Attempt: 1})
	r.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L5#2>L3"), Slot: "inner", Attempt: 1, Err: context.DeadlineExceeded})
	r.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L5"), Slot: "target", Attempt: 2})
	r.End(nil)

	spans := mem.GetSpans()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4", len(spans))
	}
	root := one(t, spans, "invoke_workflow outer")
	var second tracetest.SpanStub
	for _, s := range byName(t, spans, "call target") {
		a := attrs(s)
		if s.Parent.SpanID() != root.SpanContext.SpanID() {
			t.Errorf("attempt %d of the outer call is not under the run", a[telemetry.CallAttempt].AsInt64())
		}
		switch a[telemetry.CallAttempt].AsInt64() {
		case 1:
			if a[telemetry.CallOutcome].AsString() != "error" {
				t.Errorf("failed attempt's outcome %v", a[telemetry.CallOutcome])
			}
		case 2:
			second = s
		}
	}
	inner := one(t, spans, "call inner")
	if inner.Parent.SpanID() != second.SpanContext.SpanID() {
		t.Errorf("the nested call's parent %v, want the outer call's second attempt %v", inner.Parent.SpanID(), second.SpanContext.SpanID())
	}
	if a := attrs(inner); a[telemetry.CallOutcome].AsString() != "timeout" || a[telemetry.ErrorType].AsString() != "timeout" {
		t.Errorf("timed-out call: %v", a)
	}
}
