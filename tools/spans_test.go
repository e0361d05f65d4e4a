package tools_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/telemetry"
)

// spans runs fn with a tracer whose spans it returns.
func spans(fn func(*telemetry.Tracer)) []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	fn(telemetry.New(tp, telemetry.Options{}))
	tp.Shutdown(context.Background())
	return rec.Ended()
}

// Each tool call a session runs is an execute_tool span under the span of
// the render that made it, with the tool's name and the model's call id;
// a replay runs none and exports none.
func TestExecuteToolSpans(t *testing.T) {
	f := newFixture(t)
	model := llmtest.NewServer(t,
		llmtest.Call("tick", map[string]any{"args": []string{"a"}}),
		llmtest.Call("tick", map[string]any{"args": []string{"b"}}),
		llmtest.JSON(map[string]any{"count": 2}))
	var runID string
	live := spans(func(tr *telemetry.Tracer) {
		opts := f.options(model)
		opts.Telemetry = tr
		res, err := run.Local{}.Run(context.Background(), f.request(), opts)
		must(t, err)
		runID = res.RunID
	})
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range live {
		byID[s.SpanContext().SpanID().String()] = s
	}
	var ids []string
	for _, s := range live {
		if s.Name() != "execute_tool tick" {
			continue
		}
		attrs := map[string]string{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.String()
		}
		if attrs["gen_ai.operation.name"] != "execute_tool" || attrs["gen_ai.tool.name"] != "tick" {
			t.Errorf("span attributes %v", attrs)
		}
		ids = append(ids, attrs["gen_ai.tool.call.id"])
		if p := byID[s.Parent().SpanID().String()]; p == nil || p.Name() != "call tally" {
			t.Errorf("execute_tool span's parent is %v, want the render's call span", p)
		}
	}
	if len(ids) != 2 || ids[0] != "call_1" || ids[1] != "call_2" {
		t.Errorf("execute_tool spans with call ids %v, want call_1 and call_2", ids)
	}
	replayed := spans(func(tr *telemetry.Tracer) {
		opts := f.options(model)
		opts.Telemetry = tr
		_, err := run.Replay(context.Background(), runID, opts)
		must(t, err)
	})
	for _, s := range replayed {
		if s.Name() == "execute_tool tick" {
			t.Errorf("a replay exported an execute_tool span")
		}
	}
}
