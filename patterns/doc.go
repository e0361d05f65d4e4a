// Package patterns instantiates a loaded pattern spec and runs it: it binds
// the spec's slots to services, types its config and inputs, builds the
// evaluator's host (caller, judge, recorder, runtime, limits) and writes the
// run's trace.
//
// Services. A Service is a delegation.Service that can be called; Caller
// dispatches each call attempt to the request's Service. ExecService runs a
// program (`exec:COMMAND`): the call's named arguments go to its stdin as one
// JSON object, its stdout is the call's value (JSON when it parses, else the
// trimmed text), a non-zero exit is an error carrying the tail of stderr
// (escape codes removed; 126 and 127 explained), empty output is an error
// showing stderr, and cancellation stops its whole process group (SIGTERM,
// then SIGKILL once the grace period is over, however quickly the shell
// itself died). NestedService runs another spec; FuncService wraps a Go
// function (tests, embedding).
//
// Binding. ParseAssignments reads `--slot k=v` style flags into Bindings;
// Bind checks them against a spec and returns an Instance: every slot bound
// to a Service (a repeated name builds a list slot, a *delegation.List of
// Services; a slot the Delegation calls directly takes one binding only),
// config and inputs typed by their declarations with defaults applied (a
// list-typed name given several times gets one element per flag). A
// program path that exists but cannot be executed is refused. Every
// problem is reported at once in a *UsageError (exit 2), with a
// did-you-mean, before any service runs. An Env turns binding texts
// into services: `exec:` itself, `llm[:MODEL]` through Env.LLM, nested
// specs (`PATH.prose.md`, `std/...`) through Env.Nested (NestedSpec), with
// dotted settings (`--slot target.refiner=...`) handed to the nested spec.
//
// Running. Prepare loads the spec (LoadSpec: disk first, then the embedded
// library), refuses one with error-level diagnostics (*SpecError) or one
// whose conditions certainly need a model when none is configured, binds
// it and assembles the host; (*Prepared).Run executes it; Run does both,
// calling RunOptions.Wrap in between. The Prepared's Host is the
// composition point: a journal replaces its Caller, Judge and Runtime with
// wrappers, without changes here. Services reach the run's host through
// CallRequest.Host (nested specs run with it, under the call's scope).
//
// Contract Markdown. Prepare also runs a function or responsibility
// (contract.go): its Execution, the wiring of its inline nodes, or one
// render of itself; callee.go resolves and binds its callees (RenderWith
// builds model renders, Outputs applies the return rule).
//
// Tracing. A run's trace is written by journal.Trace, a Recorder, in the
// journal's schema; TotalsRecorder counts a run's work; Recorders fans
// events out. What a person watching stderr sees is printed by cmd/prose.
//
// Files, one job each: binding texts and values (bind.go, bindslots.go,
// types.go, suggest.go, env.go: an Env turns binding texts into
// services); services and processes (service.go, exec.go, nested.go,
// model.go); the Contract Markdown call graph (contract.go, callee.go,
// render.go); host assembly (run.go: RunOptions, Limits, Prepare);
// accounting (accounting.go); the errors before a run (errors.go). A Go
// program embeds runs through package run, whose types wrap these.
package patterns
