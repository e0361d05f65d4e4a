package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/llm"
)

// Defaults of Options, decided here: a tool call is a step of a model's
// work, not a job, and what it prints goes back into the model's context.
const (
	// DefaultTimeout bounds one cli: tool call.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxOutput caps what is kept of a cli: tool's stdout, and
	// of its stderr, each; the rest is cut and the result says so.
	DefaultMaxOutput = 32 << 10
)

// Options configure the tools of one run.
type Options struct {
	// Dir is the working directory of cli: tools ("" is the current one).
	Dir string
	// Env holds KEY=VALUE entries added to the environment of cli: tools
	// and stdio MCP servers (which get the process environment first).
	Env []string
	// Registry resolves declarations: PATH and the MCP configuration.
	Registry *Registry
	// Servers are MCP servers served in this process, by name (a Go
	// program embedding prose, tests); they take precedence over the
	// configuration's.
	Servers map[string]*mcp.Server
	// Timeout and MaxOutput bound cli: tool calls (0: the defaults).
	Timeout   time.Duration
	MaxOutput int
	// Redact scrubs secrets from what a tool gives back (nil: nothing).
	Redact func(string) string
	// Elicit, when set, answers the elicitations of the MCP servers (a
	// form for the person behind the run), and the box declares the
	// elicitation capability to them; nil declares none, so a server
	// never asks what nobody can answer. Set it only where the run's
	// host can put the question to a person (prose mcp for a client
	// that takes elicitations).
	Elicit func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

// Box holds the tools of one run: MCP servers are started on first use,
// once per run, and stopped by Close.
type Box struct {
	opt      Options
	mu       sync.Mutex
	sessions map[string]*mcp.ClientSession
	starting map[string]*sync.Mutex
	closed   bool
}

// NewBox returns the tools of a run.
func NewBox(opt Options) *Box {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxOutput <= 0 {
		opt.MaxOutput = DefaultMaxOutput
	}
	if opt.Registry == nil {
		opt.Registry = &Registry{}
	}
	if opt.Servers != nil {
		in := map[string]bool{}
		for n := range opt.Servers {
			in[n] = true
		}
		reg := *opt.Registry
		reg.InProcess = in
		opt.Registry = &reg
	}
	return &Box{opt: opt, sessions: map[string]*mcp.ClientSession{}, starting: map[string]*sync.Mutex{}}
}

// Registry is where the box resolves declarations.
func (b *Box) Registry() *Registry { return b.opt.Registry }

// Resolve checks that every declaration resolves: the first that does
// not is the error, naming it and where it was declared.
func (b *Box) Resolve(decls []Decl) error {
	for _, d := range decls {
		code, msg := d.Problem()
		if code == "" {
			code, msg = b.opt.Registry.Unresolved(d)
		}
		if code != "" {
			return fmt.Errorf("%s (declared at %s) [%s]", msg, d.Position(), code)
		}
	}
	return nil
}

// For is the llm.Toolbox of a render declaring decls (nil when there are
// none: the render is a single request).
func (b *Box) For(decls []Decl) llm.Toolbox {
	if len(decls) == 0 {
		return nil
	}
	return &nodeBox{b: b, decls: decls}
}

// Close stops the MCP servers the run started.
func (b *Box) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	var first error
	for n, s := range b.sessions {
		if err := s.Close(); err != nil && first == nil {
			first = fmt.Errorf("stopping MCP server %s: %w", n, err)
		}
		delete(b.sessions, n)
	}
	return first
}

func (b *Box) redact(s string) string {
	if b.opt.Redact == nil {
		return s
	}
	return b.opt.Redact(s)
}

// nodeBox is the tools of one node.
type nodeBox struct {
	b     *Box
	decls []Decl
	mu    sync.Mutex
	tools []llm.Tool
	by    map[string]llm.Service
}

// Tools implements llm.Toolbox: cli: tools first as declared, each MCP
// server's tools as it lists them. The list is made once.
func (n *nodeBox) Tools(ctx context.Context) ([]llm.Tool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.by != nil {
		return n.tools, nil
	}
	by := map[string]llm.Service{}
	var tools []llm.Tool
	add := func(t llm.Tool, s llm.Service) {
		if _, dup := by[t.Name]; dup {
			return
		}
		by[t.Name] = s
		tools = append(tools, t)
	}
	for _, d := range n.decls {
		line := d.Position().Line
		switch d.Kind {
		case KindCLI:
			add(llm.Tool{Name: FunctionName(d.Name), Decl: d.Text, Line: line, Parameters: cliSchema,
				Description: strings.TrimSpace(d.Desc + " (the program " + d.Name + ", run with the argument vector you give, no shell; the result is its exit code, stdout and stderr)")},
				&cliTool{b: n.b, decl: d})
		case KindMCP:
			s, err := n.b.session(ctx, d.Name)
			if err != nil {
				return nil, fmt.Errorf("%s: MCP server %s: %w", d.Position(), d.Name, err)
			}
			list, err := s.ListTools(ctx, nil)
			if err != nil {
				return nil, fmt.Errorf("%s: MCP server %s: listing its tools: %w", d.Position(), d.Name, err)
			}
			for _, t := range list.Tools {
				add(mcpToolDef(d, line, t), &mcpTool{b: n.b, decl: d, tool: t.Name})
			}
		}
	}
	n.tools, n.by = tools, by
	return tools, nil
}

// Service implements llm.Toolbox.
func (n *nodeBox) Service(name string) llm.Service {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.by[name]
}

// FunctionName is name as an OpenAI function name: letters, digits, _
// and -, at most 64 bytes.
func FunctionName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}
