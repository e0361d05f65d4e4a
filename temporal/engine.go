package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

// Engine is the run.Engine of a Temporal cluster: Run resolves the
// request here (a bad spec or binding is refused before anything
// starts, with the errors of a local run), starts its workflow on
// Conn's task queue and waits for the result; Start only starts it. A
// worker (NewWorker, prose worker) must serve the task queue.
//
// Of run.Options it uses Notify (a Remote notice when the run starts and
// when it is canceled), and Getenv (PROSE_MODEL, to refuse early a spec that needs a
// model when none is named); the journal, the trace, the recorders and
// in-process services belong to the local engine and are ignored (the
// run's history is kept by the cluster, and `go:` bindings cannot
// travel). A Request with a BaseURL is refused (a *run.UsageError): a
// worker calls the model server it is configured with. The Result's RunID
// is the workflow id; its Totals count the run's work, as a local run's
// do (the workflow assembles its run with run.Prepare).
type Engine struct {
	Conn Conn
	// Client, when set, is used in place of dialling Conn.
	Client client.Client
	// WorkflowID is the id of the runs started ("": one the server makes).
	WorkflowID string
	// Attach, when a workflow of WorkflowID is running, makes Start and
	// Run take that run (Run waits for its result) instead of refusing
	// with an *AlreadyRunningError. The request is still resolved and
	// checked first; it is not compared with the running one's.
	Attach bool
}

var _ run.Starter = (*Engine)(nil)

// resolve turns a run.Request into the workflow's input.
func (e *Engine) resolve(r run.Request, o run.Options) (Request, error) {
	if r.BaseURL != "" {
		return Request{}, &run.UsageError{Err: errors.New("a model base URL does not travel with a run on Temporal: workers call the model server they are configured with (prose worker --base-url, or OPENAI_BASE_URL where they run)")}
	}
	if r.Model != "" {
		// Decided: refused rather than sent. The workers' model client
		// (its key and server) is theirs; a model name from the starter
		// that the workers' server may not have would fail mid-run.
		return Request{}, &run.UsageError{Err: fmt.Errorf("a run's model (%s) does not travel with a run on the temporal engine: workers call the model they are configured with (prose worker --model, or PROSE_MODEL where they run); to name a model for one slot, bind it to llm:MODEL", r.Model)}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	model := getenv("PROSE_MODEL")
	// Typed bindings travel as their text, after those given as text
	// (as a local run orders them); a Go function cannot travel.
	b := r.Bindings
	b.Slots = append([]bind.Assignment(nil), b.Slots...)
	for _, sl := range r.Slots {
		switch sl.Binding.(type) {
		case nil:
			return Request{}, &run.UsageError{Err: fmt.Errorf("slot %s has no binding", sl.Name)}
		case run.Func:
			return Request{}, &run.UsageError{Err: fmt.Errorf("slot %s: a Go function (run.Func) does not travel with a run on Temporal: bind a program (run.Exec) or a model", sl.Name)}
		}
		b.Slots = append(b.Slots, bind.Assignment{Name: sl.Name, Value: sl.Binding.Text()})
	}
	return Resolve(ResolveOptions{
		Path: r.Spec, Dir: r.Dir, Bindings: b,
		Limits:    r.Limits,
		HaveModel: model != "",
	})
}

// client returns the client to use and a function that releases it.
func (e *Engine) client(ctx context.Context) (client.Client, func(), error) {
	if e.Client != nil {
		return e.Client, func() {}, nil
	}
	cl, err := Dial(ctx, e.Conn)
	if err != nil {
		return nil, nil, err
	}
	return cl, cl.Close, nil
}

// Start resolves req and starts its run; it returns the workflow id
// without waiting (Wait, or prose result ID, waits for it).
func (e *Engine) Start(ctx context.Context, req run.Request, o run.Options) (string, error) {
	treq, err := e.resolve(req, o)
	if err != nil {
		return "", err
	}
	cl, done, err := e.client(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	id, _, err := e.start(ctx, cl, treq)
	return id, err
}

// start starts the run, or with Attach takes the running one of the same
// id (attached reports that).
func (e *Engine) start(ctx context.Context, cl client.Client, treq Request) (id string, attached bool, err error) {
	id, err = Start(ctx, cl, e.Conn, e.WorkflowID, treq)
	var ar *AlreadyRunningError
	if e.Attach && errors.As(err, &ar) {
		return ar.ID, true, nil
	}
	return id, false, err
}

// Run resolves req, starts its run and waits for its value. A run that
// failed returns a *run.Error of the Code a local run would have, around
// a *RunError (with the Result naming the run). When ctx ends first the
// run is cancelled on the cluster (its programs are stopped as on Ctrl-C
// locally) and ctx's error is returned.
func (e *Engine) Run(ctx context.Context, req run.Request, o run.Options) (*run.Result, error) {
	treq, err := e.resolve(req, o)
	if err != nil {
		return nil, err
	}
	cl, done, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	id, attached, err := e.start(ctx, cl, treq)
	if err != nil {
		return nil, err
	}
	if o.Notify != nil {
		o.Notify(run.Notice{Remote: &run.RemoteNotice{ID: id, Engine: "Temporal", Queue: e.Conn.queue(), Attached: attached}})
	}
	res := &run.Result{RunID: id, Mode: journal.Live}
	v, totals, err := wait(ctx, cl, id)
	if ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if cerr := cl.CancelWorkflow(cctx, id, ""); cerr == nil && o.Notify != nil {
			o.Notify(run.Notice{Remote: &run.RemoteNotice{ID: id, Engine: "Temporal", Canceled: true}})
		}
		return res, ctx.Err()
	}
	if err != nil {
		return res, err
	}
	res.Value = v
	if totals != nil {
		res.Totals = *totals
	}
	return res, nil
}
