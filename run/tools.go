package run

import (
	"context"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/tools"
)

// The tools of a run (### Tools): one tools.Box, made before the run
// starts, whose MCP servers start on first use and stop with the run.

// newTools makes the box of req's run: programs run in workDir, MCP
// servers from req.MCPConfig or the project's .mcp.json, and servers, in
// process, before either; elicit (nil: none) answers their elicitations.
func newTools(req Request, workDir string, servers map[string]*mcp.Server, elicit func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error), red *redact.Redactor) (*tools.Box, error) {
	var cfg *tools.Config
	var err error
	if req.MCPConfig != "" {
		file := req.MCPConfig
		if req.Dir != "" && !filepath.IsAbs(file) {
			file = filepath.Join(req.Dir, file)
		}
		cfg, err = tools.LoadConfig(file)
	} else {
		dir := req.Dir
		if dir == "" {
			dir = "."
		}
		cfg, err = tools.FindConfig(dir)
	}
	if err != nil {
		return nil, err
	}
	return tools.NewBox(tools.Options{Dir: workDir, Registry: &tools.Registry{Config: cfg},
		Servers: servers, Redact: red.String, Elicit: elicit}), nil
}

// withTools makes info's render a tool session when node declares tools
// (its own, or its responsibility's): each declaration must resolve, but
// in a replay, which runs none of them.
func (m *Models) withTools(info *llm.RenderInfo, node *spec.Spec) error {
	decls := tools.ForRender(node)
	if len(decls) == 0 || m.tools == nil {
		return nil
	}
	if !m.replay {
		if err := m.tools.Resolve(decls); err != nil {
			return err
		}
	}
	info.Tools = m.tools.For(decls)
	info.Line = max(node.File.Position(node.Pos).Line, 1)
	info.MaxTurns = m.maxTurns
	return nil
}

// closeTools stops what the run's tools started.
func (m *Models) closeTools() {
	if m.tools != nil {
		m.tools.Close()
	}
}
