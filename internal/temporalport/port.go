// Package temporalport is the Temporal engine as prose's commands reach
// it: the calls they make, in types of prose's own, with no import of the
// Temporal SDK. The commands (internal/cli) hold a Link, nil in the
// program prose, which hands the Temporal commands to prose-temporal; the
// program prose-temporal gives them the Link of package linked, the
// engine itself. This split is what keeps the SDK, gRPC and the Temporal
// API's protobuf registrations (several milliseconds and megabytes at
// every start) out of the commands that do not use them.
package temporalport

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/serve/connect"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// Link is the Temporal engine.
type Link interface {
	// ConnFromEnv fills the empty fields of c from the environment
	// (PROSE_TEMPORAL_*).
	ConnFromEnv(c Conn, getenv func(string) string) Conn
	// Engine is the engine of `prose run --engine temporal` on c.
	Engine(c Conn, workflowID string, attach bool) Engine
	// Dial connects to the cluster of c.
	Dial(ctx context.Context, c Conn) (Client, error)
	// WrongRun reports whether err, from a run on the cluster, is a
	// workflow id that names the wrong run or none.
	WrongRun(err error) bool
	// RunFailure is the run's own failure on the cluster in err (nil when
	// there is none) and its message alone.
	RunFailure(err error) (msg string, run error)
	// CodecHandler serves the remote codec protocol of runs' payloads
	// with the key of keyFile ("": the workers' default), to the callers
	// that carry token, for the pages of allowOrigin ("": none).
	CodecHandler(keyFile, token, allowOrigin string) (http.Handler, error)
}

// Conn says which Temporal service, namespace and task queue to use.
type Conn struct {
	Address, Namespace, TaskQueue string
	// Log receives the SDK's warnings and errors (nil drops them).
	Log io.Writer
}

// Engine is the Temporal engine as a run.Engine.
type Engine interface {
	run.Engine
	// Start starts the run and returns its workflow id without waiting
	// for it.
	Start(ctx context.Context, req run.Request, o run.Options) (string, error)
}

// Client is a connection to the cluster.
type Client interface {
	Close()
	// Gates are the gates run id waits at.
	Gates(ctx context.Context, id string) ([]Gate, error)
	// Answer answers gate ("": the only one) of run id with value.
	Answer(ctx context.Context, id, gate string, value json.RawMessage) (Gate, error)
	// Wait waits for run id and returns its result.
	Wait(ctx context.Context, id string) (delegation.Value, error)
	// StartServe starts (or joins) the serve workflow of w on queue and
	// returns its workflow id.
	StartServe(ctx context.Context, queue string, w World) (string, error)
	// Front is the HTTP front of serve workflow id.
	Front(id string, g *graph.Graph, st *store.Store) Front
	// Worker is a worker of c's task queue serving runs with a and serve
	// workflows with the projects open opens.
	Worker(c Conn, a Activities, o WorkerOptions, open func(World) (*Project, error)) Worker
}

// Gate is a gate a run waits at.
type Gate struct {
	Gate, Kind string
	Question   json.RawMessage
}

// World names what a serve workflow keeps current, as paths every
// worker reaches.
type World struct {
	Project, State, SignKey string
	Slots                   []string
	MaxParallel             int
}

// Project is a World opened on a worker.
type Project struct {
	Graph   *graph.Graph
	Store   *store.Store
	Drain   *drain.Prepared
	SignKey ed25519.PrivateKey
}

// Activities are the model hooks of a worker's calls (nil: the calls
// that need one fail, saying the worker has no model client).
type Activities struct {
	LLM           func(b *bind.Slot) (service.Service, error)
	Render        func(b *bind.Render) (service.Service, error)
	ModelJudgeFor func(sp *spec.Spec) delegation.Judge
}

// WorkerOptions bound a worker's concurrency (0: the SDK's default).
type WorkerOptions struct {
	MaxConcurrentCalls, MaxConcurrentRuns int
}

// Worker is a worker to start and stop.
type Worker interface {
	Start() error
	Stop()
}

// Front is the HTTP front of a serve workflow.
type Front interface {
	httpapi.Backend
	connect.Sink
	// Follow reports each drain the workflow finishes until ctx ends.
	Follow(ctx context.Context, every time.Duration, drained func(*serve.Outcome))
	// Take gives the workflow the graph the server loaded, as it starts:
	// it takes its shape again when it was taken from another graph. It
	// returns what to say of it ("": nothing).
	Take() (string, error)
}
