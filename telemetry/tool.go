package telemetry

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proselang/prose/delegation"
)

// tool records one tool call a model session ran as an execute_tool span,
// under the span of the call whose session made it. A call the journal
// answered ran nothing and has none.
func (r *Run) tool(ev *delegation.Event) {
	r.mu.Lock()
	r.begin("", "")
	ctx := r.parent(ev.Path)
	r.mu.Unlock()
	end := ev.Time
	if end.IsZero() {
		end = time.Now()
	}
	attrs := []attribute.KeyValue{OperationName.String(OpExecuteTool), ToolName.String(ev.Slot),
		ToolType.String("function"), CallPath.String(ev.Path.Key())}
	if ev.Args != nil {
		if id, ok := ev.Args.Get("call_id"); ok {
			if s, ok := id.(string); ok && s != "" {
				attrs = append(attrs, ToolCallID.String(s))
			}
		}
		if r.t.opt.Content {
			a, _ := ev.Args.Get("arguments")
			if b, err := delegation.ToJSON(a); err == nil {
				attrs = append(attrs, ToolCallArguments.String(r.red.String(string(b))))
			}
			if ev.Err == nil {
				if b, err := delegation.ToJSON(ev.Result); err == nil {
					attrs = append(attrs, ToolCallResult.String(r.red.String(string(b))))
				}
			}
		}
	}
	_, span := r.t.tr.Start(ctx, spanName(OpExecuteTool, ev.Slot), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(end.Add(-ev.Duration)), trace.WithAttributes(attrs...))
	if ev.Err != nil {
		span.SetAttributes(ErrorType.String(r.errorType(ev.Err)))
		span.SetStatus(codes.Error, r.red.String(ev.Err.Error()))
	}
	span.End(trace.WithTimestamp(end))
}
