package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/telemetry"
)

// DefaultRunDir is where runs are journaled, relative to the working
// directory, unless Options.RunDir says otherwise.
const DefaultRunDir = ".prose/runs"

// Options say how to run a Request. The zero value runs without a
// journal, a trace, progress or a model.
type Options struct {
	// RunDir is the directory holding run journals (one subdirectory per
	// run); "" runs without a journal (it cannot be resumed or replayed).
	RunDir string
	// SyncEvery is the journal's group-commit window (see
	// journal.Options.SyncEvery; 0 fsyncs each record).
	SyncEvery time.Duration
	// Trace, when set, receives the run's JSON-lines trace.
	Trace io.Writer
	// Stderr, when set, receives what a person running the spec should
	// see besides the result: the spec's warnings (unless Quiet), the run
	// id line, warnings about the journal.
	Stderr io.Writer
	Quiet  bool
	// Diagnostics, when set, shows the spec's warnings in place of
	// Stderr (a terminal colours them).
	Diagnostics func(text string)
	// Services are the in-process services a `go:NAME` binding names.
	Services map[string]patterns.Service
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
	// Files, when set, is where spec files are read from, names as the
	// request gives them (nil: the operating system's, a relative path
	// read from Request.Dir when it is there, else from the working
	// directory, else from the embedded library). Each file is read once
	// per run.
	Files fs.FS
	// Telemetry, when set, exports the run as OpenTelemetry spans.
	Telemetry *telemetry.Tracer
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
	Totals patterns.Totals
	// ModelUsage is the run's model usage, nil when no model was asked.
	ModelUsage any
}

// UsageError is a request that cannot run as given: a value withheld from
// the journal and not given again, a bad option. Bad bindings and invalid
// specs are patterns.UsageError and patterns.SpecError.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Run runs req: loads the spec, binds it, journals it under
// Options.RunDir (a new run id), and returns its result. The error is the
// run's (a *delegation.Error for a run-time error, *patterns.UsageError or
// *patterns.SpecError before it started) or the journal's. The Result is
// non-nil once the spec is bound, also when the run failed.
func Run(ctx context.Context, req Request, o Options) (*Result, error) {
	if req.Dir == "" {
		if wd, err := os.Getwd(); err == nil {
			req.Dir = wd
		}
	}
	return execute(ctx, req, o, journal.Live, "")
}

// Resume continues the journaled run id under o.RunDir: it rebuilds the
// run from the journaled request (with o.Overrides in place of the values
// given again), answers every call the journal holds from it, and runs the
// rest live, appending to the same journal.
func Resume(ctx context.Context, id string, o Options) (*Result, error) {
	return rerun(ctx, id, o, journal.Resuming)
}

// Replay re-runs the journaled run id under o.RunDir from its journal
// alone: no service and no model is called, nothing is written, and a
// result or error different from the journaled one is reported.
func Replay(ctx context.Context, id string, o Options) (*Result, error) {
	return rerun(ctx, id, o, journal.Replaying)
}

func rerun(ctx context.Context, id string, o Options, mode journal.Mode) (*Result, error) {
	if o.RunDir == "" {
		return nil, &UsageError{fmt.Errorf("%s: no run directory", mode)}
	}
	l, err := journal.ReadFile(filepath.Join(o.RunDir, id, journal.FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, &UsageError{fmt.Errorf("%s: no run %q in %s (see 'prose runs')", mode, id, o.RunDir)}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mode, err)
	}
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
	if sp := l.Header.Spec; filepath.IsAbs(sp) && req.specFile() == "" {
		if _, err := os.Stat(sp); err != nil {
			return nil, fmt.Errorf("%s %s: %w", mode, id, &journal.SpecChangedError{Spec: sp, Unreadable: err})
		}
	}
	res, err := execute(ctx, req, o, mode, id)
	if err != nil && mode == journal.Replaying && len(missing) > 0 {
		err = fmt.Errorf("%w; %s not journaled because it looked like a secret, and a call that used it differs until it is given again, e.g. prose replay %s %s",
			err, strings.Join(missing, ", "), id, flagHint(missing[0]))
	}
	return res, err
}

// execute prepares, journals and runs req.
func execute(ctx context.Context, req Request, o Options, mode journal.Mode, id string) (*Result, error) {
	req = req.validText()
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
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
	g := specgraph.New(specgraph.Options{FS: files})
	env := &patterns.Env{Dir: req.Dir, Services: o.Services, Nested: patterns.NestedSpecWith(g.Load)}
	opts := patterns.RunOptions{
		Path: req.Spec, Graph: g, Bindings: req.Bindings, Env: env,
		Limits: req.Limits,
		Recorders: o.Recorders, Runtime: o.Runtime,
	}
	mods.apply(&opts)
	totals := &patterns.TotalsRecorder{}
	opts.Recorders = append(append([]delegation.Recorder{}, opts.Recorders...), totals)
	var trace *journal.Trace
	traced := false
	if o.Trace != nil {
		trace = journal.NewTrace(o.Trace, redact.ForEnv(o.Environ, mods.cfg.Secrets()...).WithShapes())
		opts.Recorders = append(opts.Recorders, trace)
	}
	var spans *telemetry.Run
	if o.Telemetry != nil {
		spans = o.Telemetry.Start(ctx, telemetry.RunInfo{Spec: req.Spec, Mode: mode.String(),
			Redactor: redact.ForEnv(o.Environ, mods.cfg.Secrets()...).WithShapes()})
		opts.Recorders = append(opts.Recorders, spans)
	}
	if mode == journal.Replaying {
		opts.ModelJudge, opts.ModelJudgeFor = replayModel{}, nil
		env.LLM = func(b *patterns.SlotBinding) (patterns.Service, error) {
			return &patterns.FuncService{Name: b.Name, Fn: replayModel{}.Call}, nil
		}
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jr := &runJournal{o: o, req: req, mode: mode, id: id, stderr: stderr, cancel: cancel}
	res := &Result{Mode: mode}
	var prepared *patterns.Prepared
	opts.Wrap = func(p *patterns.Prepared) error {
		prepared = p
		res.Warnings = p.Warnings
		if !o.Quiet {
			if o.Diagnostics != nil {
				o.Diagnostics(p.Warnings.String())
			} else {
				fmt.Fprint(stderr, p.Warnings.String())
			}
		}
		if err := jr.wrap(p); err != nil {
			return err
		}
		if spans != nil && jr.run != nil {
			spans.Started(p.Spec.Name, jr.run.ID(), jr.run.AnsweredCall)
		} else if spans != nil {
			spans.Started(p.Spec.Name, "", nil)
		}
		if trace != nil {
			h, _ := jr.header(p.Spec.File.Source())
			h.RunID = id
			if jr.run != nil {
				h.RunID = jr.run.ID()
			}
			trace.Start(h)
			traced = true
		}
		return nil
	}
	v, runErr := patterns.Run(ctx, opts)
	if spans != nil {
		spans.End(runErr)
	}
	res.Value = v
	if traced {
		var usage any
		if u, ok := mods.usage(totals.Totals().DecidedJudgments); ok {
			usage = u
		}
		trace.Finish(time.Now(), v, runErr, totals.Totals(), usage)
	}
	runErr = jr.finish(v, runErr)
	if jr.run != nil {
		res.RunID, res.Journal = jr.run.ID(), jr.run.Path()
		res.Calls, res.Answered = jr.run.Calls(), jr.run.Answered()
	}
	if prepared == nil {
		return nil, runErr
	}
	res.Totals = totals.Totals()
	if u, ok := mods.usage(res.Totals.DecidedJudgments); ok {
		res.ModelUsage = u
	}
	return res, runErr
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
