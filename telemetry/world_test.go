package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/telemetry"
)

// Each drain is a trace of its own; a render is a span under its drain
// and a model request a chat span under its render; a failed render
// has an error status and error.type from prose's codes, and so has the
// drain it failed in, while the drain that failed nothing has none.
func TestWorldDrainSpans(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem), sdktrace.WithIDGenerator(telemetry.IDGenerator()))
	w := telemetry.New(tp, telemetry.Options{}).World("/w", telemetry.RunInfo{
		ErrorCode: func(error) string { return "failed" }, BaseURL: "http://127.0.0.1:9/v1"})
	temp := 0.5
	for i, renderErr := range []error{nil, errors.New("the program exited 1")} {
		ctx, end := w.Drain(context.Background())
		rctx, endRender := w.Render(ctx, "brief")
		w.Chat(rctx, delegation.Exchange{Model: "m-1", RequestModel: "m", ResponseID: "r1", Temperature: &temp, MaxTokens: 99, OutputType: "json"})
		endRender(renderErr)
		end(i+1, renderErr)
	}
	spans := mem.GetSpans()
	drains, renders, chats := byName(t, spans, "drain"), byName(t, spans, "render brief"), byName(t, spans, "chat m")
	if len(drains) != 2 || len(renders) != 2 || len(chats) != 2 {
		t.Fatalf("%d drains, %d renders, %d chats; want 2 each", len(drains), len(renders), len(chats))
	}
	if drains[0].SpanContext.TraceID() == drains[1].SpanContext.TraceID() {
		t.Errorf("two drains share trace %s", drains[0].SpanContext.TraceID())
	}
	for i := range 2 {
		d, r, c := drains[i], renders[i], chats[i]
		if d.Parent.IsValid() || r.Parent.SpanID() != d.SpanContext.SpanID() || c.Parent.SpanID() != r.SpanContext.SpanID() ||
			c.SpanContext.TraceID() != d.SpanContext.TraceID() {
			t.Errorf("drain %d: spans not nested drain > render > chat", i+1)
		}
		if got := attrs(d)[telemetry.DrainNumber].AsInt64(); got != int64(i+1) {
			t.Errorf("drain %d: prose.drain.number %d", i+1, got)
		}
		ca := attrs(c)
		if ca[telemetry.ResponseID].AsString() != "r1" || ca[telemetry.RequestTemperature].AsFloat64() != 0.5 ||
			ca[telemetry.RequestMaxTokens].AsInt64() != 99 || ca[telemetry.OutputType].AsString() != "json" ||
			ca[telemetry.ServerAddress].AsString() != "127.0.0.1" {
			t.Errorf("chat span attributes %v", ca)
		}
	}
	if renders[0].Status.Code != codes.Unset || drains[0].Status.Code != codes.Unset {
		t.Errorf("a drain that failed nothing has status %v / %v", drains[0].Status, renders[0].Status)
	}
	for _, s := range []tracetest.SpanStub{renders[1], drains[1]} {
		if s.Status.Code != codes.Error || attrs(s)[telemetry.ErrorType].AsString() != "failed" {
			t.Errorf("%s of the failed render: status %v, attributes %v", s.Name, s.Status, attrs(s))
		}
	}
}
