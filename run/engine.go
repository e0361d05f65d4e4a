package run

import "context"

// Engine runs a Request. Local runs it in this process (the evaluator,
// the journal); package temporal's Engine runs it on the workers of a
// Temporal cluster. A command or a program picks one and calls through
// this interface, so the same Request runs on either.
//
// Options are the caller's wishes; an engine honours those that mean
// something to it (the journal, the trace and the recorders belong to the
// local engine: a Temporal run's history is kept by the cluster) and says
// in its doc which it ignores.
type Engine interface {
	Run(ctx context.Context, req Request, o Options) (*Result, error)
}

// Starter is an Engine that can also start a run and return at once: the
// returned id names the run to the engine (a Temporal workflow id), for
// the engine's own way to wait for it later.
type Starter interface {
	Engine
	Start(ctx context.Context, req Request, o Options) (id string, err error)
}

// Local is the engine of this process: its runs are journaled under
// Options.RunDir, resumable and replayable with Resume and Replay.
type Local struct{}

// Run runs req in this process: Prepare, then Start and Wait. It loads
// the spec, binds it, journals it under Options.RunDir (a new run id) and
// returns its result. The error is the run's (a *delegation.Error for a
// run-time error, *bind.UsageError or *callgraph.SpecError before it
// started) or the journal's. The Result is non-nil once the spec is
// bound, also when the run failed.
func (Local) Run(ctx context.Context, req Request, o Options) (*Result, error) {
	r, err := Prepare(ctx, req, o)
	if err != nil {
		return nil, err
	}
	r.Start(ctx) // an error is Wait's too
	return r.Wait()
}

var _ Engine = Local{}
