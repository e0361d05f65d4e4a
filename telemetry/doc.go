// Package telemetry exports runs as OpenTelemetry spans, by the GenAI
// semantic conventions.
//
// A Tracer (New) starts one Run per run of a spec; a Run is a
// delegation.Recorder fed the run's own event stream, so nothing else in
// the run changes when spans are wanted. The spans of one run:
//
//	invoke_workflow NAME   the run (prose.run.id, prose.run.mode, prose.spec.*)
//	  call SLOT            one per attempt of a call: prose.call.path,
//	                       prose.call.slot, prose.call.attempt,
//	                       prose.call.outcome, error.type; a call of a
//	                       nested spec is a child of the call that runs it
//	    chat MODEL         one per model request of an llm slot
//	                       (gen_ai.operation.name, gen_ai.provider.name,
//	                       gen_ai.request.model, gen_ai.response.model,
//	                       gen_ai.usage.*, gen_ai.response.finish_reasons,
//	                       error.type; the messages only with Content)
//	  chat MODEL           a natural-language condition a model decided
//
// A chat span also has server.address and server.port (from the base
// URL), and gen_ai.output.type: "json" where a verdict or a render's
// schema was asked for, else "text". The chat span of a slot's, a
// render's or a verdict's request also has gen_ai.request.temperature and
// gen_ai.request.max_tokens as sent (left out when the server refused
// them and they were not sent) and gen_ai.response.id.
// error.type is the name of a prose code (run.Code: "failed", "usage",
// ...), timeout or canceled, never a Go type. A run that waits at a gate
// has not failed: its span and its gate's call span keep their status
// unset, and carry the event prose.gate.waiting (and prose.run.waiting,
// prose.call.outcome "waiting"). A run and its resumes are one trace (see
// IDGenerator and RunTraceID), one root span per session.
//
// The drains of a world model are traced by World: a drain is a trace, a
// render a span under it, and a render's model request or its
// Execution's run (a Run started with the render's context) under the
// render.
//
// Slots have no model tools, so there are no execute_tool spans. A call
// answered from the journal (resume, replay) keeps its span, marked
// prose.call.journaled=true, and has no chat span: no model was asked.
// Every text that goes into a span passes through the run's redactor.
//
// Open builds the exporter the CLI uses: OTLP over HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set, and/or one
// JSON object per span and line to a file (FileExporter). Keys lists the
// attribute keys.
package telemetry
