package render

import (
	"context"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/tools"
)

// declaredTools is the toolbox of sp's ### Tools (nil when it declares
// none), made as prose run makes a run's: cli: programs run in the
// render's directory, MCP servers from Drain.MCPConfig or the .mcp.json
// found from there; close stops what it started. A declaration that does
// not resolve fails the render, naming it.
func (m *Model) declaredTools(sp *spec.Spec) (_ llm.Toolbox, close func(), err error) {
	decls := tools.ForRender(sp)
	if len(decls) == 0 {
		return nil, func() {}, nil
	}
	dir := m.Dir
	if dir == "" {
		dir = "."
	}
	var cfg *tools.Config
	if m.Drain != nil && m.Drain.MCPConfig != "" {
		cfg, err = tools.LoadConfig(m.Drain.MCPConfig)
	} else {
		cfg, err = tools.FindConfig(dir)
	}
	if err != nil {
		return nil, nil, err
	}
	box := tools.NewBox(tools.Options{Dir: m.Dir, Registry: &tools.Registry{Config: cfg}})
	if err := box.Resolve(decls); err != nil {
		box.Close()
		return nil, nil, err
	}
	return box.For(decls), func() { box.Close() }, nil
}

// toolService is the service of the ### Tools tool a model called by
// name, nil when name is none of them.
func toolService(tb llm.Toolbox, name string) llm.Service {
	if tb == nil {
		return nil
	}
	return tb.Service(name)
}

// callTool runs one tool call and returns what the model reads: the
// tool's value as JSON, or {"error": ...} when it failed to run (as in a
// session of prose run).
func callTool(ctx context.Context, svc llm.Service, c llm.ToolCall) string {
	var argv delegation.Value = c.Arguments
	if v, err := delegation.FromJSON([]byte(c.Arguments)); err == nil {
		argv = v
	}
	args := delegation.NewObject()
	args.Set("tool", c.Name)
	args.Set("arguments", argv)
	args.Set("call_id", c.ID)
	v, err := svc.Call(ctx, &delegation.CallRequest{Service: svc, Args: args, Attempt: 1})
	if err != nil {
		return errorJSON(err.Error())
	}
	b, err := delegation.ToJSON(v)
	if err != nil {
		return errorJSON(err.Error())
	}
	return string(b)
}
