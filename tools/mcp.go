package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/procgroup"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/version"
)

// session is the client session of MCP server name, started on first use
// and kept for the run: in-process (Options.Servers), over stdio (a
// configured command) or streamable HTTP (a configured url).
func (b *Box) session(ctx context.Context, name string) (*mcp.ClientSession, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errors.New("the run's tools are stopped")
	}
	if s := b.sessions[name]; s != nil {
		b.mu.Unlock()
		return s, nil
	}
	gate := b.starting[name]
	if gate == nil {
		gate = &sync.Mutex{}
		b.starting[name] = gate
	}
	b.mu.Unlock()
	gate.Lock() // one start per server, whoever asks first
	defer gate.Unlock()
	b.mu.Lock()
	s := b.sessions[name]
	b.mu.Unlock()
	if s != nil {
		return s, nil
	}
	t, err := b.transport(ctx, name)
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "prose", Version: version.String()}, b.clientOptions())
	s, err = client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.Close()
		return nil, errors.New("the run's tools are stopped")
	}
	b.sessions[name] = s
	return s, nil
}

// clientOptions are the options of the box's MCP clients: with an
// elicitation handler, so the capability is declared, only when the box
// can answer elicitations.
func (b *Box) clientOptions() *mcp.ClientOptions {
	if b.opt.Elicit == nil {
		return nil
	}
	return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return b.opt.Elicit(ctx, r.Params)
	}}
}

// transport is how server name is reached.
func (b *Box) transport(ctx context.Context, name string) (mcp.Transport, error) {
	if srv := b.opt.Servers[name]; srv != nil {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.WithoutCancel(ctx), st, nil); err != nil {
			return nil, fmt.Errorf("serving in process: %w", err)
		}
		return ct, nil
	}
	conf, ok := b.opt.Registry.Config.ServerMap()[name]
	if !ok {
		return nil, fmt.Errorf("not configured")
	}
	if conf.URL != "" {
		hc := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: conf.Headers}}
		return &mcp.StreamableClientTransport{Endpoint: conf.URL, HTTPClient: hc}, nil
	}
	cmd := exec.Command(conf.Command, conf.Args...)
	cmd.Dir = b.opt.Dir
	cmd.Env = append(os.Environ(), b.opt.Env...)
	keys := make([]string, 0, len(conf.Env))
	for k := range conf.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+os.ExpandEnv(conf.Env[k]))
	}
	release, err := procgroup.Prepare(cmd)
	if err != nil {
		return nil, err
	}
	return watchedCommand{&mcp.CommandTransport{Command: cmd}, release}, nil
}

// watchedCommand is a command transport whose server starts behind
// procgroup's gate: its process group is listed with the watchdog before
// it runs, so it ends with prose, however prose dies.
type watchedCommand struct {
	*mcp.CommandTransport
	release func() procgroup.Group
}

func (w watchedCommand) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := w.CommandTransport.Connect(ctx) // starts the server
	w.release()
	return conn, err
}

// headerTransport adds a configured server's headers to each request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, os.ExpandEnv(v))
	}
	return h.base.RoundTrip(r)
}

// mcpToolDef is the function tool of one tool an MCP server lists:
// SERVER__TOOL, so two servers' tools never share a name.
func mcpToolDef(d Decl, line int, t *mcp.Tool) llm.Tool {
	params, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		params = json.RawMessage(`{"type":"object"}`)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return llm.Tool{Name: FunctionName(d.Name + "__" + t.Name), Description: desc, Parameters: params, Decl: d.Text, Line: line}
}

// mcpTool calls one tool of an MCP server.
type mcpTool struct {
	b    *Box
	decl Decl
	tool string
}

func (t *mcpTool) ServiceName() string { return t.decl.Text }

// Call calls the tool with the model's arguments. Its value is the
// server's result as JSON ({"content": [...], "structuredContent",
// "isError"}), redacted; a result with isError set is a result the model
// reads, not an error.
func (t *mcpTool) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	s, err := t.b.session(ctx, t.decl.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.decl.Text, err)
	}
	var args any = map[string]any{}
	if v, _ := req.Args.Get("arguments"); v != nil {
		raw, err := delegation.ToJSON(v)
		if err != nil {
			return nil, err
		}
		args = json.RawMessage(raw)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: t.tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: tool %s: %w", t.decl.Text, t.tool, err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	text := t.b.redact(string(raw))
	if v, err := delegation.FromJSON([]byte(text)); err == nil {
		return v, nil
	}
	return text, nil
}
