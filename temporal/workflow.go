package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/activityopts"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Names under which the workflow and activities are registered.
const (
	WorkflowName      = "prose.Run"
	CallActivityName  = "prose.Call"
	JudgeActivityName = "prose.Judge"
)

// Error types of the failures this package sends across Temporal.
const (
	errCall           = "prose.call"            // a service's attempt threw
	errTimeout        = "prose.timeout"         // a call's `timeout` fired on the worker
	errMissingProgram = "prose.missing-program" // the worker lacks a binding's program
	errNoService      = "prose.no-service"      // the worker cannot build the service at all
	errJudge          = "prose.judge"           // the judge could not answer
	errJudgeCatchable = "prose.judge.catchable" // ... but answered (a `try` may catch it)
	errUsage          = "prose.usage"           // the request does not bind (exit 2)
	errSpec           = "prose.spec"            // the spec has errors (exit 2)
	errRuntime        = "prose.runtime"         // the workflow itself failed
)

// Settings of the activities, fixed for every run so that a replay
// schedules the same commands.
const (
	// callLimit bounds one attempt without a `timeout` clause.
	callLimit = 24 * time.Hour
	// heartbeat and heartbeatTimeout: see package activityopts.
	heartbeat        = activityopts.Heartbeat
	heartbeatTimeout = activityopts.HeartbeatTimeout
)

// Result is the outcome of a finished run: its value as JSON, and the
// counts of its work (absent from the results of workflows of a prose
// before they were kept).
type Result struct {
	Value  json.RawMessage `json:"value"`
	Totals *runhost.Totals `json:"totals,omitempty"`
}

// runState is the state of one workflow execution.
type runState struct {
	req *Request
	// verdicts caches model verdicts by (condition, values).
	verdicts map[string]delegation.Verdict
	// fatal is a failure no spec can handle (a worker lacking a program);
	// it cancels the run and becomes its error.
	fatal  error
	cancel workflow.CancelFunc
	// sources gives an llm call and a model judgment the spec they belong
	// to, by file name.
	sources map[string]Source
}

// Workflow runs one Request. It is registered as WorkflowName.
func Workflow(ctx workflow.Context, req Request) (*Result, error) {
	w, cancel := workflow.WithCancel(ctx)
	defer cancel()
	st := &runState{req: &req, verdicts: map[string]delegation.Verdict{}, cancel: cancel, sources: map[string]Source{}}
	for _, s := range req.Sources {
		st.sources[s.Name] = s
	}
	rt := &runtime{root: w, backstop: heartbeatTimeout + 2*service.DefaultGrace}
	gates, err := startGates(w)
	if err != nil {
		return nil, failRun(errRuntime, err)
	}
	root := &wctx{w: w, run: st}
	// Slot answers are checked against their ensures' fields since
	// version 1 of this change; a run begun before replays unchecked.
	answerChecks := workflow.GetVersion(w, "prose.slot-answer-checks", workflow.DefaultVersion, 1)
	// The run is assembled as a local one is (run.Prepare: the same
	// checks, bindings, limits and host), with what makes it a workflow:
	// the specs come from the request, programs, models and judgments
	// are the workers' (activities), the runtime and the gates are the
	// workflow's, and nothing reads this worker's disk, environment or
	// clock (Deterministic), so that a replay takes the same steps.
	r, err := run.Prepare(root, run.Request{Spec: req.Spec, Dir: req.Dir, Bindings: req.Bindings, Limits: req.Limits}, run.Options{
		Deterministic:    true,
		UncheckedAnswers: answerChecks == workflow.DefaultVersion,
		Specs:            req.graph(),
		ContractCheck:    lint.Contract,
		Runtime:          rt,
		Gates:            gates,
		// Programs run on a worker: binding one never looks at this
		// machine's disk.
		Exec: func(b *bind.Slot) (service.Service, error) {
			s := &remoteService{name: b.Name, kind: bind.KindExec, arg: b.Arg, dir: req.Dir, shown: req.Spec}
			if b.Spec != nil && b.Spec.File != nil {
				s.shown = b.Spec.File.Name
			}
			return s, nil
		},
		Models: &run.ModelHooks{
			JudgeFor: func(*spec.Spec) delegation.Judge { return &remoteJudge{} },
			Subagent: noSessions,
			LLM: func(b *bind.Slot) (service.Service, error) {
				s := &remoteService{name: b.Name, kind: bind.KindLLM, arg: b.Arg, dir: req.Dir, shown: req.Spec}
				if b.Spec != nil && b.Spec.File != nil {
					s.specName, s.shown = b.Spec.File.Name, b.Spec.File.Name
				}
				if b.Slot != nil {
					s.slot = b.Slot.Name
				}
				return s, nil
			},
			// Functions and responsibilities without a program are
			// rendered by a worker's model.
			Render: func(b *bind.Render) (service.Service, error) {
				s := &remoteService{name: b.Name, kind: kindRender, arg: b.Model, dir: req.Dir, shown: req.Spec}
				if root := b.Node.Root(); root.File != nil {
					s.specName, s.shown = root.File.Name, root.File.Name
				}
				if b.Node != b.Node.Root() {
					s.node = b.Node.Name
				}
				return s, nil
			},
		},
	})
	if err != nil {
		if run.CodeOf(err) == run.CodeInvalidSpec {
			return nil, failRun(errSpec, err)
		}
		return nil, failRun(errUsage, err)
	}
	res, err := r.RunHere(root)
	if st.fatal != nil {
		return nil, st.fatal
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the workflow was cancelled
		}
		kind := delegation.KindRuntime
		var de *delegation.Error
		if errors.As(err, &de) {
			kind = de.Kind
		}
		return nil, failRun("prose."+kind, err)
	}
	v := res.Value
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return nil, failRun(errRuntime, fmt.Errorf("encoding the result: %v", err))
	}
	return &Result{Value: raw, Totals: &res.Totals}, nil
}

// activityOptions are the options of one attempt's activity.
func activityOptions(id string, timeout time.Duration) workflow.ActivityOptions {
	limit := callLimit
	if timeout > 0 {
		limit = timeout + service.DefaultGrace + heartbeatTimeout
	}
	return activityopts.For(id, limit,
		errCall, errTimeout, errMissingProgram, errNoService, errJudge, errJudgeCatchable)
}

// CallInput is one attempt of a remote call.
type CallInput struct {
	ID      delegation.Path `json:"id"`
	Attempt int             `json:"attempt"`
	Name    string          `json:"name"` // service name ("advancer", "chain[1]")
	Kind    string          `json:"kind"` // bind.KindExec or KindLLM
	Arg     string          `json:"arg"`  // the command, or the model
	Dir     string          `json:"dir,omitempty"`
	Timeout time.Duration   `json:"timeout,omitempty"`
	Args    json.RawMessage `json:"args"`
	// For llm: the spec that declares the slot, and the slot. For a
	// render: the file of the node, and the node when it is an inline
	// node of that file ("": the file's own).
	Spec *Source `json:"spec,omitempty"`
	Slot string  `json:"slot,omitempty"`
	Node string  `json:"node,omitempty"`
}

// CallOutput is the value of an attempt, as JSON.
type CallOutput struct {
	Value json.RawMessage `json:"value"`
}

// remoteService is a program or model slot, called through an activity.
type remoteService struct {
	name, kind, arg, dir string
	specName, slot, node string
	shown                string // the spec the slot belongs to, for the activity's summary
}

// summary is the one line the Temporal UI and CLI show for an attempt's
// activity (encrypted like every payload: the codec server reads it):
// the spec, the slot (or rendered node) and the call's path.
func (s *remoteService) summary(path delegation.Path, attempt int) string {
	what := "slot " + s.name
	if s.kind == kindRender {
		what = "render " + s.name
	}
	return fmt.Sprintf("%s: %s, call %s, attempt %d", s.shown, what, path.Key(), attempt)
}

func (s *remoteService) ServiceName() string { return s.name }

func (s *remoteService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	c, err := fromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	in := CallInput{ID: req.Path, Attempt: req.Attempt, Name: s.name, Kind: s.kind, Arg: s.arg, Dir: s.dir, Timeout: req.Timeout, Slot: s.slot, Node: s.node}
	if req.Args != nil {
		raw, err := delegation.ToJSON(req.Args)
		if err != nil {
			return nil, fmt.Errorf("encoding arguments: %v", err)
		}
		in.Args = raw
		if len(raw) > MaxValueBytes {
			return nil, fmt.Errorf("its arguments are %d bytes as JSON; a call's arguments travel through Temporal, which carries at most %d", len(raw), MaxValueBytes)
		}
	}
	if s.kind == bind.KindLLM || s.kind == kindRender {
		if src, ok := c.run.sources[s.specName]; ok {
			in.Spec = &src
		}
	}
	ao := activityOptions(req.Path.Try(req.Attempt).Key(), req.Timeout)
	ao.Summary = s.summary(req.Path, req.Attempt)
	aw := workflow.WithActivityOptions(c.w, ao)
	var out CallOutput
	for x := c; x != nil; x = x.parent {
		x.remote++
	}
	err = workflow.ExecuteActivity(aw, CallActivityName, in).Get(aw, &out)
	for x := c; x != nil; x = x.parent {
		x.remote--
	}
	if err != nil {
		return nil, c.callError(err, s)
	}
	return delegation.FromJSON(out.Value)
}

// callError turns an activity's failure into what a local service would
// have returned.
func (c *wctx) callError(err error, s *remoteService) error {
	var app *tsdk.ApplicationError
	if errors.As(err, &app) {
		switch app.Type() {
		case errTimeout:
			// The worker enforced the call's timeout: the deadline
			// context the evaluator made for this attempt has expired.
			for x := c; x != nil; x = x.parent {
				if !x.deadline.IsZero() {
					x.expired = true
					break
				}
			}
			return fmt.Errorf("%s: %w", app.Message(), context.DeadlineExceeded)
		case errMissingProgram, errNoService:
			if c.run.fatal == nil {
				c.run.fatal = failRun(app.Type(), errors.New(app.Message()))
				c.run.cancel()
			}
			return errors.New(app.Message())
		}
		return errors.New(app.Message())
	}
	if e := c.Err(); e != nil {
		return e
	}
	var te *tsdk.TimeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("the worker running %s was lost (%s)", s.name, te.TimeoutType())
	}
	return err
}

// JudgeInput is a judgment no rule decided, for the model.
type JudgeInput struct {
	ID         delegation.Path    `json:"id"`
	Cond       syntax.NaturalCond `json:"cond"`
	File       string             `json:"file"`
	Line       int                `json:"line"`
	Col        int                `json:"col"`
	Values     json.RawMessage    `json:"values"`
	FailClosed bool               `json:"fail_closed,omitempty"`
	// Options are a choice's labels (delegation.Judgment.Options).
	Options []string `json:"options,omitempty"`
	Spec    *Source  `json:"spec,omitempty"`
}

// remoteJudge asks a worker's model judge through an activity and caches
// verdicts in the workflow's state.
type remoteJudge struct{}

func (remoteJudge) Judge(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	c, err := fromContext(ctx)
	if err != nil {
		return delegation.Verdict{}, err
	}
	in := JudgeInput{ID: j.Path, File: j.Pos.File, Line: j.Pos.Line, Col: j.Pos.Col, FailClosed: j.FailClosed, Options: j.Options}
	if j.Cond != nil {
		in.Cond = *j.Cond
	}
	if j.Values != nil {
		if in.Values, err = delegation.ToJSON(j.Values); err != nil {
			return delegation.Verdict{}, fmt.Errorf("encoding the values of %q: %v", in.Cond.Text, err)
		}
	}
	key := in.Cond.Text + "\x00" + string(in.Values) + "\x00" + strconv.FormatBool(in.FailClosed) + fmt.Sprintf("\x00%q", in.Options)
	if v, ok := c.run.verdicts[key]; ok {
		v.Cached, v.Asked = true, false
		return v, nil
	}
	if src, ok := c.run.sources[j.Pos.File]; ok {
		in.Spec = &src
	}
	ao := activityOptions("judge:"+j.Path.Key(), 0)
	ao.Summary = fmt.Sprintf("%s:%d:%d: judge %q, call %s", in.File, in.Line, in.Col, in.Cond.Text, j.Path.Key())
	aw := workflow.WithActivityOptions(c.w, ao)
	var v delegation.Verdict
	if err := workflow.ExecuteActivity(aw, JudgeActivityName, in).Get(aw, &v); err != nil {
		var app *tsdk.ApplicationError
		if errors.As(err, &app) {
			return v, &judgeError{msg: app.Message(), catchable: app.Type() == errJudgeCatchable}
		}
		if e := c.Err(); e != nil {
			return v, e
		}
		return v, err
	}
	c.run.verdicts[key] = v
	return v, nil
}

// judgeError is a judge's failure as the worker reported it.
type judgeError struct {
	msg       string
	catchable bool
}

func (e *judgeError) Error() string   { return e.msg }
func (e *judgeError) Catchable() bool { return e.catchable }

func (in *JudgeInput) judgment() (*delegation.Judgment, error) {
	j := &delegation.Judgment{Path: in.ID, Cond: &in.Cond, FailClosed: in.FailClosed, Options: in.Options,
		Pos: diag.Position{File: in.File, Line: in.Line, Col: in.Col}}
	if len(in.Values) > 0 {
		v, err := delegation.FromJSON(in.Values)
		if err != nil {
			return nil, err
		}
		o, ok := v.(*delegation.Object)
		if !ok {
			return nil, fmt.Errorf("the values of %q are not an object", in.Cond.Text)
		}
		j.Values = o
	}
	return j, nil
}
