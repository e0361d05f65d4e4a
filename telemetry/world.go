package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proselang/prose/delegation"
)

// World writes the spans of the drains of one world model. A drain is a
// trace of its own (a root span, unless its context has a span); each
// render is a span under it; the model request of a node rendered by a
// model is a chat span under its render, and the run of a node's
// Execution (a Run started with the render's context) is an
// invoke_workflow span under its render, with its calls and their model
// requests beneath. Spans find their parent in the context they are
// given, so World holds no state of a drain and is safe for concurrent
// use.
//
//	drain                 prose.world.path, prose.drain.number
//	  render NODE         prose.node.id, error.type
//	    chat MODEL        a node rendered by a model
//	    invoke_workflow   a node's Execution, run on the interpreter
//	      call SLOT
//	        chat MODEL
type World struct {
	r    *Run // its configuration only: never begun
	path string
}

// Attribute keys of drains and renders.
const (
	WorldPath   = attribute.Key("prose.world.path")
	DrainNumber = attribute.Key("prose.drain.number")
	NodeID      = attribute.Key("prose.node.id")
)

// World returns the writer of the drain spans of the world model at
// path; info's Redactor, ErrorCode and BaseURL are those of its chat
// spans (its Spec and Mode are unused).
func (t *Tracer) World(path string, info RunInfo) *World {
	return &World{r: t.Start(context.Background(), info), path: path}
}

// Tracer is the Tracer of w's spans: a render's Execution runs with it
// (run.Options.Telemetry), under the render's context.
func (w *World) Tracer() *Tracer { return w.r.t }

// Drain starts the span of a drain under ctx's span, if any; ctx as
// returned carries it, for the renders. end ends it with the drain's
// store number (0: unknown) and error (nil: success).
func (w *World) Drain(ctx context.Context) (_ context.Context, end func(number int, err error)) {
	ctx, span := w.r.t.tr.Start(ctx, "drain", trace.WithAttributes(WorldPath.String(w.path)))
	return ctx, func(number int, err error) {
		if number > 0 {
			span.SetAttributes(DrainNumber.Int(number))
		}
		w.fail(span, err)
		span.End()
	}
}

// Render starts the span of the render of node under ctx's span (the
// drain's); ctx as returned carries it, for the render's model requests
// and its Execution's run. end ends it with the render's error.
func (w *World) Render(ctx context.Context, node string) (_ context.Context, end func(err error)) {
	ctx, span := w.r.t.tr.Start(ctx, "render "+node, trace.WithAttributes(NodeID.String(node)))
	return ctx, func(err error) {
		w.fail(span, err)
		span.End()
	}
}

// Chat records one model request a render made, ended now, as a chat
// span under ctx's span (the render's).
func (w *World) Chat(ctx context.Context, x delegation.Exchange) {
	w.r.chat(ctx, &x, time.Now())
}

// fail marks span failed by err, if any.
func (w *World) fail(span trace.Span, err error) {
	if err == nil {
		return
	}
	span.SetAttributes(ErrorType.String(w.r.errorType(err)))
	span.SetStatus(codes.Error, w.r.red.String(err.Error()))
}
