// Package tools reads, checks and runs the host tools a node declares in
// its ### Tools section (Contract Markdown 0.15, "Tools"):
//
//   - Declared and ForRender read the declarations (`cli:jq`, `mcp:files`)
//     with their positions; Decl.Problem says why one is malformed
//     (tool_invalid) or in a reserved namespace (tool_unsupported_kind).
//   - A Registry resolves them: a cli: program on PATH, an mcp: server in
//     the project's MCP configuration (Config: .mcp.json at the project
//     root, FindConfig, or --mcp-config FILE, LoadConfig) or served in
//     process. Check gives every finding of a spec (tool_unresolved too),
//     for prose lint; Box.Resolve refuses a run before it starts.
//   - A Box holds the tools of one run. Box.For gives a render the
//     llm.Toolbox of its declarations: each cli: tool is one function
//     tool taking an argument vector (never a shell string) and stdin,
//     run in the run's directory with its environment, a timeout and an
//     output cap, in a process group ended with the call; each MCP
//     server's tools are listed and called through the official Go SDK
//     client (in process, stdio or streamable HTTP), the server started
//     once per run, on first use, and stopped by Box.Close. The client
//     declares the elicitation capability only when Options.Elicit can
//     put a server's form to a person.
//
// The session itself (offering the tools, running the calls the model
// asks for, journaling each step by path) is llm's (session.go).
package tools
