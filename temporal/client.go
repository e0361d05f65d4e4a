package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
)

// Conn says which Temporal service, namespace and task queue to use.
type Conn struct {
	Address   string // HOST:PORT of the frontend
	Namespace string // "" is "default"
	TaskQueue string // "" is DefaultTaskQueue
	// Log, when set, receives the SDK's warnings and errors (a worker's
	// lost connection, a workflow task that does not fit the code); nil
	// drops them.
	Log io.Writer
	// KeyFile is the file of the key that encrypts the run's payloads
	// ("": KeyFile(); see codec.go for what the cluster stores).
	KeyFile string
	// plain leaves payloads in clear: only the tests that record
	// histories for the replay tests (which must read them without a
	// key) set it.
	plain bool
}

// DefaultTaskQueue is the task queue of runs and workers that name none.
const DefaultTaskQueue = "prose"

// Environment variables that give a Conn's fields.
const (
	EnvAddress   = "PROSE_TEMPORAL_ADDRESS"
	EnvNamespace = "PROSE_TEMPORAL_NAMESPACE"
	EnvTaskQueue = "PROSE_TEMPORAL_TASK_QUEUE"
)

// ConnFromEnv fills the empty fields of c from the environment.
func ConnFromEnv(c Conn, getenv func(string) string) Conn {
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.Address == "" {
		c.Address = getenv(EnvAddress)
	}
	if c.Namespace == "" {
		c.Namespace = getenv(EnvNamespace)
	}
	if c.TaskQueue == "" {
		c.TaskQueue = getenv(EnvTaskQueue)
	}
	return c
}

func (c Conn) queue() string {
	if c.TaskQueue == "" {
		return DefaultTaskQueue
	}
	return c.TaskQueue
}

// Dial connects to the Temporal frontend.
func Dial(ctx context.Context, c Conn) (client.Client, error) {
	if c.Address == "" {
		return nil, fmt.Errorf("no Temporal address: give --temporal-address HOST:PORT or set %s", EnvAddress)
	}
	var logger log.Logger = quietLogger{}
	if c.Log != nil {
		logger = log.NewStructuredLogger(slog.New(slog.NewTextHandler(c.Log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	keyFile := c.KeyFile
	var err error
	if keyFile == "" {
		if keyFile, err = KeyFile(); err != nil {
			return nil, err
		}
	}
	opts := client.Options{HostPort: c.Address, Namespace: c.Namespace, Logger: logger}
	if !c.plain {
		if opts.DataConverter, opts.FailureConverter, err = converters(keyFile); err != nil {
			return nil, err
		}
	}
	cl, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s: %v", c.Address, err)
	}
	return cl, nil
}

// Register adds the workflow and the activities to a worker.
func Register(r worker.Registry, a *Activities) {
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(a.Call, activity.RegisterOptions{Name: CallActivityName})
	r.RegisterActivityWithOptions(a.Judge, activity.RegisterOptions{Name: JudgeActivityName})
}

// WorkerOptions configure a worker.
type WorkerOptions struct {
	// MaxConcurrentCalls bounds the activities (program and model calls)
	// this worker runs at once (0: the SDK's default).
	MaxConcurrentCalls int
	// MaxConcurrentRuns bounds the workflow tasks it runs at once (0: the
	// SDK's default).
	MaxConcurrentRuns int
}

// NewWorker returns a worker for the connection's task queue, hosting the
// workflow and the activities. Start it with Run or Start.
//
// A workflow task that panics or finds its history does not fit the code
// (a deploy that changed how runs behave) is retried, not failed: the run
// waits, intact, for workers with code that can continue it (the SDK's
// BlockWorkflow policy), so a bad deploy costs time, not runs.
func NewWorker(cl client.Client, c Conn, a *Activities, o WorkerOptions) worker.Worker {
	w := worker.New(cl, c.queue(), worker.Options{
		MaxConcurrentActivityExecutionSize:     o.MaxConcurrentCalls,
		MaxConcurrentWorkflowTaskExecutionSize: o.MaxConcurrentRuns,
		WorkflowPanicPolicy:                    worker.BlockWorkflow,
	})
	Register(w, a)
	return w
}

// Start starts a run and returns its workflow id. id may be "" (the
// server then names it). A workflow of that id that is still running is
// not joined: Start returns an *AlreadyRunningError (the SDK's default
// would hand back the running workflow as if it were the new run, whose
// result is then another request's).
func Start(ctx context.Context, cl client.Client, c Conn, id string, req Request) (string, error) {
	run, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: c.queue(), WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary: "prose run " + req.Spec, // encrypted like every payload: the codec server reads it
	}, WorkflowName, req)
	if err != nil {
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &started) {
			return "", &AlreadyRunningError{ID: id, RunID: started.RunId}
		}
		return "", fmt.Errorf("starting the run on Temporal: %v", err)
	}
	return run.GetID(), nil
}

// AlreadyRunningError is a start refused because a workflow of the same
// id is running. Engine.Attach waits for that run instead.
type AlreadyRunningError struct {
	ID    string // the workflow id
	RunID string // the running execution's run id
}

func (e *AlreadyRunningError) Error() string {
	return fmt.Sprintf("workflow %s is already running (run %s): give another --workflow-id, or --attach to wait for that run's result", e.ID, e.RunID)
}

// UnknownRunError is a wait for a workflow id the namespace does not
// know.
type UnknownRunError struct{ ID string }

func (e *UnknownRunError) Error() string {
	return fmt.Sprintf("no run with workflow id %q on this Temporal namespace (prose run --engine temporal --detach prints the id of the run it starts)", e.ID)
}

// RunError is a run that ended with an error: its message as the local
// engine would print it, the kind of delegation error (call, throw,
// runtime, judge, limit, canceled) or usage/spec for a request that does
// not bind, and the evaluator's error (see failure.go).
type RunError struct {
	Kind string
	Msg  string
	// Err is the run's *delegation.Error as the worker reported it (nil
	// for another failure, or from a worker of an older prose).
	Err error
}

func (e *RunError) Error() string { return e.Msg }
func (e *RunError) Unwrap() error { return e.Err }

// Wait waits for the run with the given workflow id and returns its value.
// A run that failed returns a *run.Error of the Code a local run of the
// request would have, around a *RunError; a cancelled one a RunError of
// kind canceled.
func Wait(ctx context.Context, cl client.Client, id string) (delegation.Value, error) {
	v, _, err := wait(ctx, cl, id)
	return v, err
}

// wait is Wait, with the run's totals (nil from a workflow that kept
// none).
func wait(ctx context.Context, cl client.Client, id string) (delegation.Value, *runhost.Totals, error) {
	var res Result
	err := cl.GetWorkflow(ctx, id, "").Get(ctx, &res)
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil, nil, &UnknownRunError{ID: id}
		}
		return nil, nil, runError(err)
	}
	v, err := delegation.FromJSON(res.Value)
	return v, res.Totals, err
}

// quietLogger drops the SDK's log lines (progress goes elsewhere).
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
