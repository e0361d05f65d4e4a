package mcpserve

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/internal/recovered"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/telemetry"
	"github.com/proselang/prose/version"
)

// MaxWait bounds how long one result call waits for a run: well under the
// shortest tool timeout of common hosts (60 s).
const MaxWait = 30 * time.Second

// Options configure a Server.
type Options struct {
	// RunDir holds the runs' journals ("" : run.DefaultRunDir).
	RunDir string
	// Dir is the directory relative paths resolve against ("" : the
	// working directory).
	Dir string
	// Getenv and Environ are the model configuration and the
	// environment's secrets, as run.Options has them (nil: the process's).
	Getenv  func(string) string
	Environ []string
	// Telemetry, when set, exports each run's spans.
	Telemetry *telemetry.Tracer
	// MCPServers are MCP servers served in this process to the runs'
	// ### Tools, as run.Options has them.
	MCPServers map[string]*mcp.Server
}

// Server is prose's MCP server: the tools, and the runs they started.
type Server struct {
	o   Options
	mcp *mcp.Server
	// ctx outlives the tool calls: runs go on after run returns. Close
	// cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	jobs map[string]*job
	wg   sync.WaitGroup
	host *host // the calls waiting for the agent host
	// elicited are the gates asked as elicitations, by elicitKey (under mu)
	elicited map[string]bool
}

// New returns a Server with every tool registered.
func New(o Options) *Server {
	if o.RunDir == "" {
		o.RunDir = run.DefaultRunDir
	}
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{o: o, ctx: ctx, cancel: cancel, jobs: map[string]*job{}, host: newHost(), elicited: map[string]bool{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "prose", Title: "prose: OpenProse specs, run by an interpreter", Version: version.String()},
		&mcp.ServerOptions{Instructions: instructions})
	s.addTools()
	return s
}

const instructions = `prose checks and runs OpenProse specs (*.prose.md) with a real interpreter: loop bounds, retries and "certified progress is never rolled back" are enforced by prose, not by you. lint a spec before running it; run returns a run_id at once, then poll result with that id (each call waits at most 30 seconds) until its status is ok or failed. Slots are bound to programs (exec:CMD), models (llm), other specs (PATH.prose.md), or host: then you fill the slot's calls yourself (result says waiting; pending lists the call with its contract and the shape wanted; fill answers it). replay re-runs a finished run from its journal without calling anything.`

// MCP is the *mcp.Server to serve (server.Run(ctx, &mcp.StdioTransport{}),
// or mcp.NewStreamableHTTPHandler).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close stops the runs still going (each journaled: prose resume goes on
// with it) and waits for them.
func (s *Server) Close() {
	s.cancel()
	s.wg.Wait()
}

// runOptions are the run.Options of every run the server starts.
func (s *Server) runOptions() run.Options {
	return run.Options{RunDir: s.o.RunDir, SyncEvery: 100 * time.Millisecond, ContractCheck: lint.Contract,
		Getenv: s.o.Getenv, Environ: s.o.Environ, Telemetry: s.o.Telemetry, MCPServers: s.o.MCPServers}
}

// safe turns a panic of h into a tool error: a bug answers one call
// badly, it does not take the server and its runs down.
func safe[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if p := recover(); p != nil {
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("prose: internal error in %s: %w", req.Params.Name, recovered.Capture(p))
			}
		}()
		return h(ctx, req, in)
	}
}
