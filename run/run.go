package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/telemetry"
)

// DefaultRunDir is where runs are journaled, relative to the working
// directory, unless Options.RunDir says otherwise.
const DefaultRunDir = ".prose/runs"

// DefaultSyncEvery is the journal's group-commit window of prose run and
// prose test: records are fsynced together at most this long after they
// are written.
const DefaultSyncEvery = 100 * time.Millisecond

// Options say how to run a Request. The zero value runs without a
// journal, a trace, progress or a model.
type Options struct {
	// RunDir is the directory holding run journals (one subdirectory per
	// run); "" runs without a journal (it cannot be resumed or replayed).
	RunDir string
	// InputRunDir is where the run ids given to inputs typed run are
	// looked up when RunDir is "" (a run that keeps no journal reads the
	// runs of --run-dir all the same); "" is DefaultRunDir. See
	// ResolveRunInput.
	InputRunDir string
	// RunID, when set, is the id of a new run's journal in RunDir (a
	// run id: no slash; "" a fresh one from the clock, journal.NewRunID):
	// a drain names each render's journal after its node and drain. A
	// journal of that id already there is an error of the run.
	RunID string
	// SyncEvery is the journal's group-commit window (see
	// journal.Options.SyncEvery; 0 fsyncs each record).
	SyncEvery time.Duration
	// Trace, when set, receives the run's JSON-lines trace.
	Trace io.Writer
	// ContractCheck, when set, runs the rules of Contract Markdown a
	// function or responsibility must pass before it runs (prose passes
	// lint.Contract; see bind.Env.ContractCheck).
	ContractCheck func(sp *spec.Spec, loaded diag.List, f *spec.Finder) diag.List
	// Notify, when set, is told what a person running the spec should
	// know besides the result, as the run goes (see Notice): this
	// package prints nothing itself.
	Notify func(Notice)
	// Funcs are the Go functions that Func bindings name, given again to
	// a resume of a run that bound them (a run binds those of
	// Request.Slots itself; a replay needs none: the journal answers
	// their calls, so `prose replay` replays a run a Go program made).
	Funcs []Func
	// Services are in-process services by the name a `go:NAME` binding
	// text gives (Funcs are the typed way).
	Services map[string]service.Service
	// Host serves the slots bound to `host` (prose mcp hands their calls
	// to the agent host connected to it); nil refuses such a binding
	// before the run starts. A replay needs none: the journal answers.
	Host func(b *bind.Slot) (service.Service, error)
	// Getenv reads the model configuration (OPENAI_API_KEY,
	// OPENAI_BASE_URL, PROSE_MODEL, ...) and the environment secrets a
	// journal withholds; nil: os.Getenv. Environ lists the environment for
	// the latter (nil: os.Environ).
	Getenv  func(string) string
	Environ []string
	// Recorders receive every event of the run (progress output).
	Recorders []delegation.Recorder
	// Runtime runs parallel work and keeps time (nil: the default).
	Runtime delegation.Runtime
	// Force lets a resume go on although the spec changed or a call
	// diverges from the journal (diverging calls run live).
	Force bool
	// Overrides are values given again to a resume or a replay.
	Overrides Overrides
	// WorkDir, when set, is where programs run in place of Request.Dir
	// (a test runner gives each test a scratch directory, while the
	// journal keeps the test's own).
	WorkDir string
	// Models, when set, serve the run's models in place of those
	// configured from the environment: a test runner judges and renders
	// its own way, or stands in for an absent model.
	Models *ModelHooks
	// Files, when set, is where spec files are read from, names as the
	// request gives them (nil: the operating system's, a relative path
	// read from Request.Dir when it is there, else from the working
	// directory, else from the embedded library). Each file is read once
	// per run.
	Files fs.FS
	// Telemetry, when set, exports the run as OpenTelemetry spans.
	Telemetry *telemetry.Tracer
	// MCPServers are MCP servers served in this process, by the name a
	// ### Tools `mcp:NAME` declaration gives (before the configuration's).
	MCPServers map[string]*mcp.Server
	// Elicit, when set, answers the elicitations of the run's MCP
	// servers (tools.Options.Elicit): only a host that can put a form to
	// a person sets it, and only then are servers told elicitation is
	// supported.
	Elicit func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Gates answers the run's gates (ask_user, gate): nil is a
	// gate.Local on the run's journal, with GateClock (nil: time.Now) as
	// the clock of their timeouts and GatePrompt (nil: none, the run
	// suspends) to ask in place.
	Gates      delegation.Gater
	GateClock  func() time.Time
	GatePrompt func(ctx context.Context, q gate.Question) (json.RawMessage, error)
	// Started, when set, is called once the spec is bound and the journal
	// open, before any call runs, with the run id ("" without a journal):
	// a server hands the id out while the run goes on.
	Started func(runID string)

	// Exec, when set, serves the slots bound to programs in place of
	// running them in this process (a Temporal workflow has its workers
	// run them).
	Exec func(b *bind.Slot) (service.Service, error)
	// Specs, when set, is the graph every spec file of the run is loaded
	// from, in place of one over Files (a Temporal workflow reads the
	// sources its request carries).
	Specs *specgraph.Graph
	// Deterministic assembles the run for an engine that replays it from
	// a history and must take the same steps every time (package
	// temporal's workflow): Prepare reads nothing of this process (the
	// environment only through Getenv, no working directory, spec files
	// only through Specs or Files, no MCP configuration: ### Tools
	// sessions are the engine's Models.Render's to serve), keeps no
	// journal, trace or telemetry (RunDir, Trace and Telemetry must be
	// unset), and the run is run by RunHere on the caller's goroutine,
	// under the caller's ctx as it is, with Gates (which must be set)
	// answering its gates; Start refuses it.
	Deterministic bool
	// UncheckedAnswers turns off the check of slot answers against the
	// fields their ensures declares (package bind): an engine replaying a
	// run begun by a version of prose that did not check them sets it, so
	// that the replay takes the steps the run took.
	UncheckedAnswers bool
}

// Notice is what a run tells Options.Notify, for a person running it;
// one field is set.
type Notice struct {
	// Warnings are the spec's non-error diagnostics, told when the run
	// starts (not told when there are none).
	Warnings diag.List
	// Journal is the run's journal, told once it is open: its RunID is
	// what a resume needs.
	Journal *JournalNotice
	// Remote is a run an engine started elsewhere (package temporal).
	Remote *RemoteNotice
	// Warning is a problem that leaves the outcome as it is: a resume of
	// a changed spec under Force, a replay of a run that never finished.
	Warning error
	// Err is the journal's failure to record the end of a run that
	// failed anyway (the run's error is the one returned).
	Err error
}

// JournalNotice describes the journal of a run.
type JournalNotice struct {
	RunID string
	Path  string // the journal file
	Mode  journal.Mode
}

// RemoteNotice is a run an engine started, found running, or canceled
// elsewhere.
type RemoteNotice struct {
	ID     string // the engine's id of the run (a Temporal workflow id)
	Engine string // the engine's name, for a person ("Temporal")
	Queue  string // where the engine runs it (a Temporal task queue)
	// Attached: the run was already running (started by an earlier
	// call with the same id), and this one waits for it.
	Attached bool
	// Canceled: the run was canceled because the caller stopped waiting
	// (its context was done).
	Canceled bool
}

// notify tells o.Notify n, when it is set.
func (o *Options) notify(n Notice) {
	if o.Notify != nil {
		o.Notify(n)
	}
}

// ModelHooks serve what a run asks of models (see Options.Models).
type ModelHooks struct {
	// JudgeFor builds the judge of a spec's natural-language conditions
	// (nil: no model).
	JudgeFor func(sp *spec.Spec) delegation.Judge
	// LLM builds the service of an `llm` binding; Render the service
	// rendering a function or responsibility (nil: no model).
	LLM    func(b *bind.Slot) (service.Service, error)
	Render func(b *bind.Render) (service.Service, error)
	// Subagent builds the service of a script's sessions (nil: no
	// model).
	Subagent func(b *bind.Subagent) (service.Service, error)
}

// Result is how a run ended, when it got as far as running.
type Result struct {
	Value delegation.Value
	// RunID and Journal name the run's journal ("" without one).
	RunID   string
	Journal string
	Mode    journal.Mode
	// Calls is the number of call attempts completed; Answered how many of
	// them a resume or replay answered from the journal (the rest ran
	// live).
	Calls, Answered int
	// Warnings are the spec's non-error diagnostics.
	Warnings diag.List
	// Totals count the run's calls and judgments.
	Totals runhost.Totals
	// ModelUsage is the run's model usage, nil when no model was asked.
	ModelUsage *ModelUsage
}

// UsageError is a request that cannot run as given: a value withheld from
// the journal and not given again, a bad option. Bad bindings and invalid
// specs are bind.UsageError and callgraph.SpecError.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Resume continues the journaled run id under o.RunDir: it rebuilds the
// run from the journaled request (with o.Overrides in place of the values
// given again), answers every call the journal holds from it, and runs the
// rest live, appending to the same journal.
func Resume(ctx context.Context, id string, o Options) (*Result, error) {
	res, err := rerun(ctx, id, o, journal.Resuming)
	return res, wrapErr(err)
}

// Replay re-runs the journaled run id under o.RunDir from its journal
// alone: no service and no model is called, nothing is written, and a
// result or error different from the journaled one is reported.
func Replay(ctx context.Context, id string, o Options) (*Result, error) {
	res, err := rerun(ctx, id, o, journal.Replaying)
	return res, wrapErr(err)
}

func rerun(ctx context.Context, id string, o Options, mode journal.Mode) (*Result, error) {
	if o.RunDir == "" {
		return nil, &UsageError{fmt.Errorf("%s: no run directory", mode)}
	}
	// The journal is read once: what the rerun needs of it here (the
	// request, the kept sources) and what the run answers from later
	// (journal.Opened.Run, in runJournal.wrap). A resume holds its lock
	// from here on.
	op, err := journal.Open(o.RunDir, id, mode, journal.Options{})
	if errors.Is(err, os.ErrNotExist) {
		return nil, &UsageError{fmt.Errorf("%s: no run %q in %s (see 'prose runs')", mode, id, o.RunDir)}
	}
	if err != nil {
		return nil, &JournalError{fmt.Errorf("%s %s: %w", mode, id, err)}
	}
	defer op.Close() // released here unless the run took it
	l := op.Log()
	raw := l.Request()
	if raw == nil {
		return nil, fmt.Errorf("%s %s: the journal holds no request to re-run (written by a prose before journal format 2)", mode, id)
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("%s %s: the journaled request: %w", mode, id, err)
	}
	req = o.Overrides.apply(req)
	if mode == journal.Replaying {
		// A replay asks no model: a withheld model or URL is not needed.
		if req.Model == redact.Mark {
			req.Model = ""
		}
		if req.BaseURL == redact.Mark {
			req.BaseURL = ""
		}
	}
	missing := req.withheld()
	if len(missing) > 0 && mode == journal.Resuming {
		return nil, &UsageError{fmt.Errorf("resume %s: %s not journaled because it looked like a secret; pass it again, e.g. prose resume %s %s",
			id, strings.Join(missing, ", "), id, flagHint(missing[0]))}
	}
	if mode == journal.Replaying {
		// A replay calls no service, but it needs to know what each slot
		// is bound to (a program, a model, a nested spec, whose calls it
		// answers): a withheld binding is asked for before anything runs,
		// not reported as a binding of unknown kind.
		for _, m := range missing {
			if strings.HasPrefix(m, "slot ") {
				return nil, &UsageError{fmt.Errorf("replay %s: %s not journaled because it looked like a secret; pass it again, e.g. prose replay %s %s",
					id, m, id, flagHint(m))}
			}
		}
	}
	if mode == journal.Replaying {
		// A replay reads the specs as the run loaded them, from the
		// sources its run directory keeps, edited or removed since.
		base := o.Files
		if base == nil {
			base = specgraph.OSIn(req.Dir)
		}
		o.Files = journal.SourceFS(filepath.Join(o.RunDir, id), l, base)
	}
	if sp := l.Header.Spec; filepath.IsAbs(sp) && req.specFile() == "" && !journal.Kept(o.Files, req.Spec) {
		if _, err := os.Stat(sp); err != nil {
			return nil, fmt.Errorf("%s %s: %w", mode, id, &journal.SpecChangedError{Spec: sp, Unreadable: err})
		}
	}
	res, err := execute(ctx, req, o, mode, id, op)
	if err != nil && mode == journal.Replaying && len(missing) > 0 {
		err = fmt.Errorf("%w; %s not journaled because it looked like a secret, and a call that used it differs until it is given again, e.g. prose replay %s %s",
			err, strings.Join(missing, ", "), id, flagHint(missing[0]))
	}
	return res, err
}

// execute prepares, journals and runs req, resuming or replaying the
// journal op.
func execute(ctx context.Context, req Request, o Options, mode journal.Mode, id string, op *journal.Opened) (*Result, error) {
	r, err := prepare(ctx, req, o, mode, id)
	if err != nil {
		return nil, err
	}
	r.jr.opened = op
	r.Start(ctx) // an error is Wait's too
	return r.Wait()
}

// Prepare assembles the run of req without starting it: it reads the
// model configuration, loads and checks the spec and every spec it
// reaches, and binds its slots, config and inputs (the errors before
// anything runs: *callgraph.SpecError, *bind.UsageError, *UsageError).
// Start opens the journal and starts the run; Wait waits for its Result.
// prose run (Local.Run), prose resume and replay, and prose test all run
// through it.
func Prepare(ctx context.Context, req Request, o Options) (*Run, error) {
	if req.Dir == "" && !o.Deterministic {
		if wd, err := os.Getwd(); err == nil {
			req.Dir = wd
		}
	}
	r, err := prepare(ctx, req, o, journal.Live, "")
	return r, wrapErr(err)
}

// Run is a prepared run: bound and checked, not started.
type Run struct {
	o      Options
	req    Request
	mode   journal.Mode
	cancel context.CancelCauseFunc

	p      *runhost.Prepared
	mods   *Models
	totals *runhost.TotalsRecorder
	trace  *journal.Trace
	spans  *telemetry.Run
	jr     *runJournal

	started bool
	done    chan struct{}
	res     *Result
	err     error
}

// Warnings are the spec's non-error diagnostics.
func (r *Run) Warnings() diag.List { return r.p.Warnings }

func prepare(ctx context.Context, req Request, o Options, mode journal.Mode, id string) (*Run, error) {
	if err := o.deterministic(); err != nil {
		return nil, err
	}
	req, services, err := req.typed(o)
	if err != nil {
		return nil, err
	}
	req = req.validText()
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.Models != nil || o.Deterministic && o.Getenv == nil {
		// the hooks serve every model: none is configured from the
		// environment (nor refused for a missing key)
		getenv = func(string) string { return "" }
	}
	mods, err := newModels(getenv, req, mode == journal.Replaying)
	if err != nil {
		return nil, &UsageError{err}
	}
	// One graph for the run: the spec, its callees and the specs its
	// slots are bound to are each read once, relative paths from the
	// run's directory first (named as given, so messages read as in the
	// directory the run started in), then the working directory and the
	// library.
	files := o.Files
	if files == nil {
		files = specgraph.OSIn(req.Dir)
	}
	g := o.Specs
	switch {
	case g == nil:
		g = specgraph.New(specgraph.Options{FS: files})
	case o.RunDir != "":
		// A graph shared with other runs (a drain's renders share the
		// drain's): this run's view of it reads nothing again, and its
		// Files are the files this run loads, the sources its journal
		// keeps (not every file the others loaded).
		g = specgraph.New(specgraph.Options{FS: o.Specs, Load: o.Specs.Load})
	}
	workDir := req.Dir
	if o.WorkDir != "" {
		workDir = o.WorkDir
	}
	if !o.Deterministic {
		if mods.tools, err = newTools(req, workDir, o.MCPServers, o.Elicit,
			redact.ForEnv(o.Environ, append(mods.cfg.Secrets(), redact.Values(req.inputSecrets())...)...).WithShapes()); err != nil {
			return nil, &UsageError{err}
		}
	}
	mods.maxTurns = req.MaxTurns
	mods.dir = req.Dir
	env := &bind.Env{Dir: workDir, Services: services, Host: o.Host, Exec: o.Exec, Nested: callgraph.NestedSpecWith(g.Load), ContractCheck: o.ContractCheck}
	env.UncheckedAnswers = o.UncheckedAnswers
	env.Runs = runResolver(o, req.Dir)
	if o.Exec == nil && !o.Deterministic && mode != journal.Replaying {
		env.LookPath = exec.LookPath // programs run here: a name not in PATH is refused before the run
	}
	opts := runhost.RunOptions{
		Path: req.Spec, Graph: g, Bindings: req.Bindings, Env: env,
		Limits:    req.Limits,
		Recorders: o.Recorders, Runtime: o.Runtime,
	}
	mods.apply(&opts)
	if h := o.Models; h != nil {
		opts.ModelJudge, opts.ModelJudgeFor = nil, h.JudgeFor
		env.LLM, env.Render, env.Subagent = h.LLM, h.Render, h.Subagent
	}
	r := &Run{o: o, req: req, mode: mode, mods: mods, totals: &runhost.TotalsRecorder{}, done: make(chan struct{})}
	opts.Recorders = append(append([]delegation.Recorder{}, opts.Recorders...), r.totals)
	if o.Trace != nil {
		r.trace = journal.NewTrace(o.Trace, redact.ForEnv(o.Environ, append(mods.cfg.Secrets(), redact.Values(req.inputSecrets())...)...).WithShapes())
		r.trace.ErrorCode = errorCode
		opts.Recorders = append(opts.Recorders, r.trace)
	}
	if o.Telemetry != nil {
		base := mods.cfg.BaseURL
		if base == "" {
			base = llm.DefaultBaseURL
		}
		r.spans = o.Telemetry.Start(ctx, telemetry.RunInfo{Spec: req.Spec, Mode: mode.String(),
			Redactor:  redact.ForEnv(o.Environ, append(mods.cfg.Secrets(), redact.Values(req.inputSecrets())...)...).WithShapes(),
			ErrorCode: errorCode, BaseURL: base})
		opts.Recorders = append(opts.Recorders, r.spans)
	}
	if mode == journal.Replaying {
		opts.ModelJudge, opts.ModelJudgeFor = replayModel{}, nil
		env.LLM = func(b *bind.Slot) (service.Service, error) {
			return &service.Func{Name: b.Name, Fn: replayModel{}.Call}, nil
		}
		// A host's answers are in the journal: a replay needs no host.
		env.Host = env.LLM
		// Nor the Go functions a program bound (a drain's
		// read_world_model): their answers are in the journal too.
		replayFuncs(req.Bindings.Slots, services)
	}
	r.jr = &runJournal{o: o, req: req, mode: mode, id: id, graph: g}
	r.p, err = runhost.Prepare(opts)
	if err != nil {
		if r.spans != nil {
			r.spans.End(err)
		}
		return nil, err
	}
	return r, nil
}

// replayFuncs serves each go:NAME binding of slots that services lack
// by the replay's stand-in, which is never called (the journal answers).
func replayFuncs(slots []bind.Assignment, services map[string]service.Service) {
	for _, a := range slots {
		if name, ok := strings.CutPrefix(a.Value, "go:"); ok && services[name] == nil {
			services[name] = &service.Func{Name: name, Fn: replayModel{}.Call}
		}
	}
}

// Start tells the spec's warnings (Options.Notify), opens the
// journal (a new one, or the run being resumed or replayed) and starts
// the run on a goroutine of its own, under ctx (a run whose ctx is done
// stops, and its journal can be resumed). An error (the journal cannot be
// opened) means the run did not start; Wait then returns it too. Start
// runs a Run once.
func (r *Run) Start(ctx context.Context) error {
	if r.o.Deterministic {
		return &Error{Code: CodeUsage, Err: errors.New("run: a deterministic run is run by RunHere, not started on a goroutine")}
	}
	if r.started {
		return errRanTwice
	}
	var runCtx context.Context
	runCtx, r.jr.cancel = context.WithCancelCause(ctx)
	r.cancel = r.jr.cancel
	if err := r.begin(); err != nil {
		return err
	}
	go r.exec(runCtx)
	return nil
}

// RunHere runs the prepared run to its end on the caller's goroutine and
// returns its Result and error, as Start and Wait would. It derives no
// context from ctx and starts no goroutine, so that ctx may be an
// engine's own (a Temporal workflow's, which only its runtime can take
// apart); a run with a journal is started with Start, whose context a
// divergence cancels. Like Start, it runs a Run once.
func (r *Run) RunHere(ctx context.Context) (*Result, error) {
	if r.o.RunDir != "" {
		return nil, &Error{Code: CodeUsage, Err: errors.New("run: a run with a journal is started with Start, not RunHere")}
	}
	if r.o.Deterministic && r.o.Gates == nil {
		return nil, &Error{Code: CodeUsage, Err: errors.New("run: a deterministic run needs Options.Gates (its gates cannot wait on this process's clock)")}
	}
	if r.started {
		return nil, errRanTwice
	}
	r.cancel = func(error) {}
	if err := r.begin(); err != nil {
		return nil, err
	}
	r.exec(ctx)
	return r.Wait()
}

// begin is what Start and RunHere do before the run runs: tell the
// warnings, open the journal, give the host its gates, tell Started.
func (r *Run) begin() error {
	r.started = true
	p := r.p
	r.res = &Result{Mode: r.mode, Warnings: p.Warnings}
	if len(p.Warnings) > 0 {
		r.o.notify(Notice{Warnings: p.Warnings})
	}
	if err := r.jr.wrap(p); err != nil {
		r.end(nil, err, false)
		return r.err
	}
	p.Host.Gates = r.o.Gates
	if p.Host.Gates == nil {
		l := &gate.Local{Now: r.o.GateClock, Prompt: r.o.GatePrompt}
		if r.jr.run != nil {
			l.States = r.jr.run.GateState
		}
		p.Host.Gates = l
	}
	if r.spans != nil && r.jr.run != nil {
		r.spans.Started(p.Spec.Name, r.jr.run.ID(), r.jr.run.AnsweredCall)
	} else if r.spans != nil {
		r.spans.Started(p.Spec.Name, "", nil)
	}
	if r.o.Started != nil && r.jr.run != nil {
		r.o.Started(r.jr.run.ID())
	} else if r.o.Started != nil {
		r.o.Started("")
	}
	if r.trace != nil {
		h, _ := r.jr.header(p.Spec.File.Source(), false)
		h.RunID = r.jr.id
		if r.jr.run != nil {
			h.RunID = r.jr.run.ID()
		}
		r.trace.Start(h)
	}
	return nil
}

// errRanTwice is a second Start or RunHere of a Run.
var errRanTwice = &Error{Code: CodeUsage, Err: errors.New("run: Start called twice")}

// exec runs the begun run under ctx and records how it ended.
func (r *Run) exec(ctx context.Context) {
	v, err := r.p.Run(ctx)
	r.end(v, err, r.trace != nil)
}

// end records how the run ended: the trace's and the journal's last
// records, the Result.
func (r *Run) end(v delegation.Value, runErr error, traced bool) {
	defer close(r.done)
	defer r.cancel(nil)
	defer r.mods.closeTools()
	if r.spans != nil {
		r.spans.End(runErr)
	}
	res := r.res
	res.Value = v
	if traced {
		var usage any
		if u, ok := r.mods.usage(r.totals.Totals().DecidedJudgments); ok {
			usage = u
		}
		r.trace.Finish(time.Now(), v, runErr, r.totals.Totals(), usage)
	}
	runErr = r.jr.finish(v, runErr)
	if r.jr.run != nil {
		res.RunID, res.Journal = r.jr.run.ID(), r.jr.run.Path()
		res.Calls, res.Answered = r.jr.run.Calls(), r.jr.run.Answered()
	}
	res.Totals = r.totals.Totals()
	if u, ok := r.mods.usage(res.Totals.DecidedJudgments); ok {
		res.ModelUsage = &u
	}
	r.err = wrapErr(runErr)
}

// Wait waits for the started run to end and returns its Result (non-nil
// once the run got as far as Start) and error: the run's, the
// journal's, or a resume's or replay's divergence. Without Start it
// returns an error at once.
func (r *Run) Wait() (*Result, error) {
	if !r.started {
		return nil, &Error{Code: CodeUsage, Err: errors.New("run: Wait called before Start")}
	}
	<-r.done
	return r.res, r.err
}

// deterministic refuses the options a deterministic run cannot honour
// (see Options.Deterministic).
func (o *Options) deterministic() error {
	if !o.Deterministic {
		return nil
	}
	var bad []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"RunDir", o.RunDir != ""}, {"Trace", o.Trace != nil}, {"Telemetry", o.Telemetry != nil}, {"MCPServers", len(o.MCPServers) > 0}} {
		if f.set {
			bad = append(bad, f.name)
		}
	}
	if len(bad) > 0 {
		return &UsageError{fmt.Errorf("a deterministic run keeps no journal, trace or telemetry and starts no MCP server: %s must be unset", strings.Join(bad, ", "))}
	}
	if o.Specs == nil && o.Files == nil {
		return &UsageError{errors.New("a deterministic run reads its spec files through Options.Specs or Options.Files, not from this machine's disk")}
	}
	return nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
