package runhost

import (
	"context"
	"errors"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
)

// Defaults of a run: the evaluator's.
const (
	DefaultMaxParallel = delegation.DefaultMaxParallel
	DefaultMaxSteps    = delegation.DefaultMaxSteps
)

// Limits bound a run: the one type every engine, request and journal
// carries them in. A zero field is the default.
type Limits struct {
	MaxParallel int `json:"max_parallel,omitempty"` // 0: DefaultMaxParallel
	MaxSteps    int `json:"max_steps,omitempty"`    // 0: DefaultMaxSteps
	// MaxValueBytes is the size ceiling of one value (0: the evaluator's
	// delegation.DefaultMaxValueBytes).
	MaxValueBytes int64 `json:"max_value_bytes,omitempty"`
}

// WithDefaults is l with each zero (or negative) count limit set to its
// default; MaxValueBytes 0 stays 0, which the evaluator reads as its own
// default.
func (l Limits) WithDefaults() Limits {
	if l.MaxParallel <= 0 {
		l.MaxParallel = DefaultMaxParallel
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	return l
}

// RunOptions says what to run and how. Only Path (or Spec) is required.
type RunOptions struct {
	// Path is the spec file as the user named it; Spec, when set, is the
	// spec already loaded from it.
	Path string
	Spec *spec.Spec
	// Load loads Path when Spec is nil (nil: callgraph.LoadSpec).
	Load func(path string) (*spec.Spec, diag.List, error)
	// Graph, when set, loads every spec the run reaches (Path, callees,
	// pattern instances) and finds the files calls name, each file read
	// and checked once; Load and Env.Finder are then not used. nil: a
	// graph over Load and Env.Finder is made for the run.
	Graph *specgraph.Graph

	Bindings bind.Settings
	// Env turns slot bindings into services (nil: exec services only).
	Env *bind.Env

	// ModelJudge decides the conditions no deterministic rule settles
	// (nil: no model is configured; such a condition is an error, found
	// before the run where it can be). ModelHint tells the user how to
	// configure one.
	ModelJudge delegation.Judge
	ModelHint  string
	// ModelJudgeFor, when set and ModelJudge is nil, builds the model
	// judge once the spec is loaded (a judge prompt names the pattern and
	// its invariants).
	ModelJudgeFor func(sp *spec.Spec) delegation.Judge

	// Recorders receive every event (progress output, a trace:
	// journal.Trace).
	Recorders []delegation.Recorder

	// Runtime runs parallel work and keeps time (nil: the default).
	Runtime delegation.Runtime
	Limits  Limits

	// Wrap, when set, is called after Prepare and before the run: it may
	// replace the Host's Caller, Judge, Runtime or Recorder with wrappers
	// (a journal answering calls from disk), or refuse to run.
	Wrap func(p *Prepared) error
}

// DefaultModelHint is the advice given when a condition needs a model and
// none is configured.
const DefaultModelHint = "set --model (or PROSE_MODEL) with OPENAI_API_KEY and, for a local or other provider, OPENAI_BASE_URL; " +
	"or make the service return a structured verdict such as {\"verdict\": \"certify\"} or {\"proceed\": false}"

// Prepared is a run ready to start: the spec loaded and checked, its slots,
// config and inputs bound, the evaluator's host assembled. Nothing has run
// yet. Callers may adjust the Host before Run (that is what
// RunOptions.Wrap is for).
type Prepared struct {
	Path     string
	Spec     *spec.Spec
	Digest   string // SpecDigest of the spec's source
	Bindings bind.Settings
	Instance *bind.Instance
	// Warnings are the spec's non-error diagnostics.
	Warnings diag.List
	// Host is what the evaluator runs with: Caller is a service.Caller, Judge a
	// judge.Deterministic over the model judge, Recorder
	// RunOptions.Recorders.
	Host *delegation.Host

	contract *callgraph.Plan // a function or responsibility run (contract.go)
}

// Run prepares and runs a spec: Prepare, then RunOptions.Wrap, then
// (*Prepared).Run.
func Run(ctx context.Context, opts RunOptions) (delegation.Value, error) {
	p, err := Prepare(opts)
	if err != nil {
		return nil, err
	}
	if opts.Wrap != nil {
		if err := opts.Wrap(p); err != nil {
			return nil, err
		}
	}
	return p.Run(ctx)
}

// Prepare loads the spec (unless given), refuses one with error-level
// diagnostics (*SpecError), binds it (*UsageError), refuses to start a run
// whose conditions certainly need a model when none is configured, and
// assembles the host. No service runs.
func Prepare(opts RunOptions) (*Prepared, error) {
	opts.useGraph()
	if p, ok, err := prepareContract(&opts); ok {
		return p, err
	}
	sp, warnings, err := callgraph.LoadChecked(opts.Path, opts.Spec, opts.Load)
	if err != nil {
		return nil, err
	}
	// Everything known before the run is reported at once: bindings,
	// config, inputs, programs not in PATH, and conditions that need the
	// model no one configured.
	inst, err := bind.Spec(sp, &opts.Bindings, opts.Env)
	var problems []bind.Problem
	if ue := (*bind.UsageError)(nil); errors.As(err, &ue) {
		problems = ue.Problems
	} else if err != nil {
		return nil, err
	}
	if opts.ModelJudge == nil && opts.ModelJudgeFor != nil {
		opts.ModelJudge = opts.ModelJudgeFor(sp)
	}
	if opts.ModelJudge == nil {
		problems = append(problems, bind.Others(modelProblems(sp, sp.Delegation.Program, instanceLookup(inst), opts.ModelHint, warnings))...)
	}
	if len(problems) > 0 {
		return nil, &bind.UsageError{Problems: problems}
	}
	warnings = append(warnings, inst.Warnings...)
	if opts.ModelJudge == nil {
		warnings = append(warnings, modelWarnings(sp, sp.Delegation.Program, instanceLookup(inst))...)
	}
	p := &Prepared{
		Path: opts.Path, Spec: sp, Digest: SpecDigest(sp), Bindings: opts.Bindings,
		Instance: inst, Warnings: warnings,
	}
	if p.Path == "" && sp.File != nil {
		p.Path = sp.File.Name
	}
	p.Host = p.host(opts)
	return p, nil
}

// useGraph makes every load and file lookup of the run go through one
// graph, so that a spec is read and parsed once however many steps of
// Prepare (the run's own spec, the checks of its callees, the services
// built for them) ask for it.
func (o *RunOptions) useGraph() {
	g := o.Graph
	if g == nil {
		gopts := specgraph.Options{Load: o.Load}
		if o.Env != nil && o.Env.Finder != nil {
			gopts.FS, gopts.Std = o.Env.Finder.FS, o.Env.Finder.Std
		}
		g = specgraph.New(gopts)
	}
	o.Graph, o.Load = g, g.Load
	env := bind.Env{}
	if o.Env != nil {
		env = *o.Env
	}
	env.Finder = g.Finder()
	o.Env = &env
}

// host assembles the evaluator's hooks.
func (p *Prepared) host(opts RunOptions) *delegation.Host {
	recs := append(Recorders{}, opts.Recorders...)
	rt := opts.Runtime
	if rt == nil {
		rt = delegation.DefaultRuntime()
	}
	lim := opts.Limits.WithDefaults()
	h := &delegation.Host{
		Caller:        service.Caller{},
		Judge:         &judge.Deterministic{Next: opts.ModelJudge},
		Recorder:      recs,
		Runtime:       rt,
		MaxParallel:   lim.MaxParallel,
		MaxSteps:      lim.MaxSteps,
		MaxValueBytes: lim.MaxValueBytes,
	}
	return h
}

// Run executes the Delegation. Nested specs get the host from each call's
// request (CallRequest.Host).
func (p *Prepared) Run(ctx context.Context) (delegation.Value, error) {
	if p.contract != nil {
		return p.contract.Run(ctx, p.Host)
	}
	v, err := delegation.Run(ctx, p.Spec.Delegation.Program, p.Instance.Globals(), p.Host)
	if err != nil {
		return nil, err
	}
	if err := callgraph.CheckPatternResult(p.Spec, v); err != nil {
		return nil, err
	}
	return v, nil
}

// SpecDigest is the sha256 of the spec's source ("sha256:HEX"): a journal
// uses it to notice that a spec changed between a run and its resume.
func SpecDigest(sp *spec.Spec) string {
	if sp == nil || sp.File == nil {
		return ""
	}
	return digestBytes(sp.File.Source())
}
