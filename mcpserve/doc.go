// Package mcpserve is prose as a Model Context Protocol server, on the
// official Go SDK: an agent host (Claude Code, Codex, Cursor) lints,
// shows, runs, resumes and replays specs through tools, and watches a
// run's progress, while prose owns the control flow.
//
// New returns the Server; its MCP method is the *mcp.Server to serve over
// any SDK transport (stdio, streamable HTTP). Every tool has a JSON
// schema for its input and a structured result:
//
//	lint    {paths}                          -> {findings: [{file, line, col, severity, code, message}]}
//	show    {file}                           -> {spec, findings}
//	graph   {path}                           -> {graph: {nodes, edges, entry_points}, findings}
//	run     {file, slots, inputs, config}    -> {run_id}, at once; the run goes on
//	result  {run_id, wait_seconds}           -> {status: running|ok|failed, value, error}
//	resume  {run_id}                         -> {run_id}, at once
//	replay  {run_id}                         -> the shape of result
//	runs    {}                               -> {runs: [{run_id, spec, status, start, calls, error}]}
//
// A run started by run or resume sends one notifications/progress per
// finished call attempt (see progress.go). result waits at most
// MaxWait, whatever wait_seconds says, so no tool call outlasts a host's
// timeout; a host polls. An error is a tool error whose text is the
// message prose run would print (FILE:LINE:COL: ...), never a crashed
// server: a handler that panics answers with a tool error too.
package mcpserve
