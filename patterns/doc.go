// Package patterns instantiates a loaded pattern spec and runs it: it binds
// the spec's slots to services, types its config and inputs, builds the
// evaluator's host (caller, judge, recorder, runtime, limits) and writes the
// run's trace.
//
// Services. A Service is a delegation.Service that can be called; Caller
// dispatches each call attempt to the request's Service. ExecService runs a
// program (`exec:COMMAND`): the call's named arguments go to its stdin as one
// JSON object, its stdout is the call's value (JSON when it parses, else the
// trimmed text), a non-zero exit is an error carrying the tail of stderr.
// FuncService wraps a Go function (tests, embedding).
//
// Binding. ParseAssignments reads `--slot k=v` style flags into Bindings;
// Bind checks them against a spec and returns an Instance: every slot bound
// to a Service (a repeated name builds a list slot), config and inputs typed
// by their declarations with defaults applied. Problems are reported as a
// *UsageError (exit 2) before any service runs. Binding texts are turned
// into services by an Env: `exec:` here, `llm[:MODEL]` and nested specs
// (`*.prose.md`, `std/...`) through the Env's hooks.
//
// Running. Prepare loads, checks and binds a spec and builds the host;
// (*Prepared).Run executes it. Run does both. The composition points (the
// Prepared's Host fields, RunOptions.Wrap) let a durable journal wrap the
// caller, judge and runtime without changes here.
//
// Tracing. TraceWriter is a delegation.Recorder writing JSON lines (run
// start and end, call attempts, judgments, errors); Progress prints a line
// per call attempt for a person watching stderr.
package patterns
