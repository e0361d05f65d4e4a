// Package mcpserve is prose as a Model Context Protocol server, on the
// official Go SDK: an agent host (Claude Code, Codex, Cursor) lints,
// shows, runs, resumes and replays specs through tools, and watches a
// run's progress, while prose owns the control flow.
//
// New returns the Server; its MCP method is the *mcp.Server to serve over
// any SDK transport: Stdio, or streamable HTTP through DropCancelled
// (each makes sure a request the client cancelled gets no response).
// Every tool has a JSON schema for its input and a structured result:
//
//	lint    {paths}                          -> {findings: [{file, line, col, severity, code, message}]}
//	show    {file}                           -> {spec, findings}
//	graph   {path}                           -> {graph: {nodes, edges, entry_points, acyclic}, findings}
//	run     {file, slots, inputs, config, wait_seconds} -> {run_id}, at once, and the run goes on;
//	                                         with wait_seconds, {run_id} and result's fields
//	result  {run_id, wait_seconds}           -> {status: running|ok|failed|waiting, value, error, pending}
//	resume  {run_id, wait_seconds}           -> as run
//	replay  {run_id}                         -> the shape of result
//	runs    {}                               -> {runs: [{run_id, spec, status, start, calls, error}]}
//	pending {run_id}                         -> {calls: [{run_id, call, slot, attempt, contract, arguments, shape}]}
//	fill    {run_id, call, value}            -> {run_id, call}
//	answer  {run_id, gate, value}            -> {run_id, gate, resume}
//	test    {paths, run}                     -> {results: [{name, file, status, reason, items}], passed, failed, errors, skipped, ok}
//
// A gate (ask_user, gate) of a run the server runs waits as a pending
// call of slot ask_user or gate, with its question; result says waiting
// and lists it; answer (or fill) answers it (gates.go). A client that
// takes elicitations is asked each gate once as a form, in its protocol
// version: elicitation requests within the waiting call up to
// 2025-11-25, input requests of its result (SEP-2322) after. answer on a
// run stopped at a gate (prose run exited 3) records the answer in its
// journal, and resume goes on.
//
// A slot bound to `host` (run's slots: {NAME: "host"}) hands its calls to
// the connected agent: each waits, listed by pending, until fill gives a
// value that keeps the slot's contract (host.go); result reports such a
// run as waiting at once. The value is
// journaled as the call's result, so replay needs no host.
//
// A run sends one notifications/progress per finished call attempt to
// each request that waits for it (result, or run and resume with
// wait_seconds), under that request's token, while it is active, never
// after (progress.go). result waits at most
// MaxWait, whatever wait_seconds says, so no tool call outlasts a host's
// timeout; a host polls. An error is a tool error whose text is the
// message prose run would print (FILE:LINE:COL: ...), never a crashed
// server: a handler that panics answers with a tool error too.
package mcpserve
