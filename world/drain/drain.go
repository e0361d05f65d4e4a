// Package drain prepares and runs the drains of a world model: the one
// place that turns typed bindings (run.Binding) into what renders each
// node of a graph and how that is named in the node's contract
// fingerprint. `prose run DIR`, `prose serve` (local and Temporal),
// `prose worker` and the `### Drains` of a test file (section.go) all
// drain through it.
//
// # Bindings (decided)
//
// A node renders by, in order: its own binding (a program, run.Exec, or
// a model, run.Model); its ### Execution, when it is ProseScript and the
// node is a file's own (an inline node is rendered by its binding or the
// model); the default binding ("*"); the configured model. The functions
// an Execution or a model render calls are bound NODE.CALLEE.
//
// What renders a node is part of its contract fingerprint
// (Prepared.Binding), in a canonical text: the binding's own text
// (run.Binding.Text), and for an Execution or a model render the callee
// bindings in name order, so the order bindings were given in (two
// --slot flags swapped) moves no fingerprint and renders nothing. The
// project files a program's command names (sh render.sh) and a spec
// binding's file are digested into it too: editing the program renders
// the node again (programfiles.go).
//
// Main types: Bindings, Config, Prepared, Input; Test and Item for a test
// file's ### Drains. Entry points: ParseBindings, Prepare,
// (*Prepared).Run (and Number and Resume, for a drain run a step at a
// time); ParseTest, RunTest. Given is a drain whose renders a host's
// tests give; no other code assembles one (TestOneDrainAssembly).
package drain

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/telemetry"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// Config is what a drain's renders need beyond their bindings.
type Config struct {
	// Models serve the nodes rendered by a model (nil, or none
	// configured: every node needs a binding or a runnable Execution).
	Models *run.Models
	// MaxTurns bounds the model requests of a model render that calls
	// functions (0: its default).
	MaxTurns int
	// BaseURL is the API base URL of the functions a model render calls
	// ("": the environment's).
	BaseURL string
	// Dir is where programs run and relative paths of bindings resolve
	// ("": the current directory).
	Dir string
	// Specs reads the spec files the nodes' Executions call (nil: the
	// graph's own, graph.Graph.Specs, else a spec graph of the drain's
	// own): each is read once, however many nodes call it.
	Specs *specgraph.Graph
	// Model, MCPConfig and Limits are prose run's --model,
	// --mcp-config, --max-parallel, --max-steps and --max-value-bytes:
	// each render asks as prose run of its node would (render.Drain).
	Model     string
	MCPConfig string
	Limits    run.Limits
	// RenderTimeout bounds each render (reconcile.Options.RenderTimeout:
	// 0 is reconcile.DefaultRenderTimeout, a negative one bounds none).
	RenderTimeout time.Duration
}

// Prepared is a drain of one graph, assembled: what renders each node.
// Run drains once; a host that runs a drain a step at a time (the
// Temporal workflow) takes Number and Resume.
type Prepared struct {
	Graph *graph.Graph
	// Spans, when set before a drain, export it as a trace: a span of the
	// drain, one of each render under it, and the render's calls and
	// model requests under that.
	Spans *telemetry.World
	// State, when set before a drain, is the state directory whose
	// .runs/NODE/ keep the journals of the runs of the nodes' Executions
	// (see world/store/FORMAT.md); "" keeps none.
	State string

	b     Bindings
	cfg   Config
	runs  map[string]bool // nodes whose Execution runs on the interpreter
	model map[string]bool // nodes rendered by the configured model, bound by no one

	// given, when set, renders every node (Given), and givenBinding
	// names it in the contract.
	given        func(*graph.Node) (reconcile.Renderer, error)
	givenBinding func(*graph.Node) string

	// files digests the project files bindings name, calleeSums the
	// functions each node's render calls (programfiles.go).
	files      programFiles
	calleeMu   sync.Mutex
	calleeSums map[string]calleeSum
}

// Given is a drain of g whose renders are given as they are, not
// prepared from bindings: for the tests and benchmarks of the hosts that
// schedule drains (packages serve and serve/temporalserve), which render
// with fixtures of their own. binding names a node's render in its
// contract (nil: nothing beyond the spec); renderer nil renders nothing
// (each render fails). Only test files call it (TestOneDrainAssembly):
// the program's drains are Prepared.
func Given(g *graph.Graph, renderer func(*graph.Node) (reconcile.Renderer, error), binding func(*graph.Node) string) *Prepared {
	if renderer == nil {
		renderer = func(n *graph.Node) (reconcile.Renderer, error) {
			return nil, fmt.Errorf("%s: this drain renders nothing", n.ID)
		}
	}
	return &Prepared{Graph: g, given: renderer, givenBinding: binding}
}

// UnboundError is a drain refused before it starts: nodes with no
// binding, no runnable Execution and no model to render them.
type UnboundError struct{ Nodes []string }

func (e *UnboundError) Error() string {
	return "no render bound for " + strings.Join(e.Nodes, ", ") + " and no model configured"
}

// UnboundCalleesError is a drain refused before it starts: functions an
// Execution calls (NODE.CALLEE) that a model would render, with no model
// configured and no binding.
type UnboundCalleesError struct{ Callees []string }

func (e *UnboundCalleesError) Error() string {
	return "no model is configured, and these functions that an Execution calls are rendered by one: " + strings.Join(e.Callees, ", ")
}

// Prepare assembles the drain of g with bindings b (made canonical: a
// Bindings built by hand is sorted as ParseBindings sorts it). Every node
// needs a render: an *UnboundError names those that have none, an
// *UnboundCalleesError the functions only a model could render when none
// is configured.
func Prepare(g *graph.Graph, b *Bindings, c Config) (*Prepared, error) {
	p := &Prepared{Graph: g, cfg: c, runs: map[string]bool{}, model: map[string]bool{},
		b: Bindings{Nodes: map[string]run.Binding{}, Callees: map[string][]run.Slot{}}}
	if b != nil {
		p.b.Default = b.Default
		for k, v := range b.Nodes {
			p.b.Nodes[k] = v
		}
		for k, v := range b.Callees {
			p.b.Callees[k] = append([]run.Slot(nil), v...)
		}
	}
	p.b.canonical()
	if p.cfg.Specs == nil {
		p.cfg.Specs = g.Specs
	}
	if p.cfg.Specs == nil {
		p.cfg.Specs = specgraph.New(specgraph.Options{})
	}

	configured := c.Models != nil && c.Models.Configured() != nil
	var missing []string
	for _, n := range g.Nodes {
		if executionRuns(n) {
			p.runs[n.ID] = true
		}
		if p.b.Nodes[n.ID] != nil || p.runs[n.ID] || p.b.Default != nil {
			continue
		}
		if configured {
			p.model[n.ID] = true
			continue
		}
		missing = append(missing, n.ID)
	}
	if len(missing) > 0 {
		return nil, &UnboundError{Nodes: missing}
	}
	if err := p.unusedCallees(); err != nil {
		return nil, err
	}
	if !configured {
		if unbound := p.unboundCallees(); len(unbound) > 0 {
			return nil, &UnboundCalleesError{Callees: unbound}
		}
	}
	return p, nil
}

// unusedCallees refuses a NODE.CALLEE binding that binds nothing
// (decided: an error, as an unknown slot of a run is): NODE is rendered
// by a program, which calls no function, or by its Execution, which
// calls no function of that name, directly or from a function it calls.
// The binding would else be ignored while it still moves NODE's contract
// (so NODE renders again for nothing), and the callee meant stays bound
// otherwise. A model render's tools are the functions its contract
// names anywhere, so its callee bindings are not checked here.
func (p *Prepared) unusedCallees() error {
	finder := p.cfg.Specs.Finder()
	for _, n := range p.Graph.Nodes {
		as := p.b.Callees[n.ID]
		if len(as) == 0 {
			continue
		}
		switch b := p.binding(n).(type) {
		case run.Exec:
			fix := "remove it"
			if executionRuns(n) {
				fix += fmt.Sprintf(", or leave %s to its Execution (bind no program to it)", n.Label())
			}
			return fmt.Errorf("binding %s.%s: %s is rendered by a program (%s), which calls no function: the binding binds nothing; %s",
				n.ID, as[0].Name, n.Label(), b.Text(), fix)
		case nil:
		default:
			continue
		}
		reach := map[string]bool{}
		var names []string
		p.eachCallee(finder, n.Spec, func(name string, _ *spec.Spec) bool {
			if reach[name] {
				return false
			}
			reach[name] = true
			names = append(names, name)
			return true
		})
		for _, a := range as {
			if !reach[a.Name] {
				calls := "it calls none"
				if len(names) > 0 {
					calls = "it calls " + strings.Join(names, ", ")
				}
				return fmt.Errorf("binding %s.%s: the Execution of %s calls no function %q%s (%s): the binding binds nothing",
					n.ID, a.Name, n.Label(), a.Name, didYouMean(a.Name, names), calls)
			}
		}
	}
	return nil
}

// binding is what renders n: its own binding, else the default (nil for
// an Execution, or the configured model when modelled).
func (p *Prepared) binding(n *graph.Node) run.Binding {
	if b := p.b.Nodes[n.ID]; b != nil {
		return b
	}
	if p.runs[n.ID] {
		return nil
	}
	if p.model[n.ID] {
		return run.Model{}
	}
	return p.b.Default
}

// Binding is what renders n, as its contract fingerprint holds it: the
// binding's text; for an Execution ("execution") or a model render, with
// the bindings of the functions it calls, " NAME=BINDING" in name order.
func (p *Prepared) Binding(n *graph.Node) string {
	if p.given != nil {
		if p.givenBinding == nil {
			return ""
		}
		return p.givenBinding(n)
	}
	b := p.binding(n)
	d := "execution"
	switch b := b.(type) {
	case nil:
	case run.Model:
		// A model render calls the functions its node names as an
		// Execution does: their bindings are part of what renders it.
		d = b.Text()
	default:
		return b.Text()
	}
	for _, s := range p.b.Callees[n.ID] {
		d += " " + s.Name + "=" + s.Binding.Text()
	}
	return d
}

// Renderer is what renders n (reconcile.Options.Renderer).
func (p *Prepared) Renderer(n *graph.Node) (reconcile.Renderer, error) {
	if p.given != nil {
		return p.given(n)
	}
	slots := assignments(p.b.Callees[n.ID])
	// What every render shares: prose run's settings, the drain's
	// spec graph, where its run is journaled, its spans.
	cfg := p.cfg
	rd := render.Drain{Specs: cfg.Specs, Model: cfg.Model, BaseURL: cfg.BaseURL, MaxTurns: cfg.MaxTurns, MCPConfig: cfg.MCPConfig, Limits: cfg.Limits, State: p.State}
	if p.Spans != nil {
		rd.Telemetry = p.Spans.Tracer()
	}
	switch b := p.binding(n).(type) {
	case nil:
		return &render.Execution{Slots: slots, Dir: p.cfg.Dir, Drain: &rd}, nil
	case run.Model:
		if p.cfg.Models == nil {
			return nil, fmt.Errorf("%s is bound to a model, and none is configured (--model or PROSE_MODEL)", n.ID)
		}
		c, err := p.cfg.Models.Client("")
		if err != nil {
			return nil, err
		}
		m := &render.Model{Client: c, Model: b.Name, Slots: slots, Dir: p.cfg.Dir, MaxTurns: p.cfg.MaxTurns, BaseURL: p.cfg.BaseURL, Drain: &rd}
		if p.Spans != nil {
			m.Exchanged = p.Spans.Chat
		}
		return m, nil
	case run.Exec:
		return &render.Exec{Command: b.Command, Dir: p.cfg.Dir}, nil
	default:
		return nil, fmt.Errorf("%s: binding %q: a node's render takes exec:COMMAND, or llm[:MODEL]", n.ID, b.Text())
	}
}

// assignments are callee bindings as the interpreter's binder takes them.
func assignments(slots []run.Slot) []run.Assignment {
	var out []run.Assignment
	for _, s := range slots {
		out = append(out, run.Assignment{Name: s.Name, Value: s.Binding.Text()})
	}
	return out
}

// Input is one drain: what it delivers, where it commits, and the
// settings of the process that runs it.
type Input struct {
	Store *store.Store
	// Events are delivered to gateways by id; Ticks wake nodes by
	// themselves.
	Events map[string][]any
	Ticks  []string
	// CallerInputs give the inputs nothing in the project maintains, by
	// node id then input name.
	CallerInputs map[string]map[string]any
	MaxParallel  int
	SignKey      ed25519.PrivateKey
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Committed is told of each receipt as it is committed, in ledger
	// order.
	Committed func(*receipt.Receipt)
	// Kept, when set, is what the last drain of this graph kept for the
	// next, and keeps it (reconcile.Kept): a host that drains one graph
	// again and again (package serve) keeps one.
	Kept *reconcile.Kept
}

// Run drains once (reconcile.Drain) with p's renders, as a trace when
// Spans is set.
func (p *Prepared) Run(ctx context.Context, in Input) (*reconcile.Result, error) {
	return p.run(ctx, in, p.Renderer)
}

// Number is the store's number of the drain in would start
// (reconcile.Number): a host that runs a drain a step at a time (the
// Temporal workflow) fixes it first, then Resumes each step.
func (p *Prepared) Number(in Input) (int, error) {
	return reconcile.Number(p.options(in, p.Renderer))
}

// Stale is the stale scan of a drain of in.Store with p's bindings,
// without the drain (reconcile.Stale): the nodes whose sources moved
// since their last receipt. in.Events, in.Ticks and in.Kept are not read.
func (p *Prepared) Stale(in Input) ([]reconcile.Staleness, error) {
	return reconcile.Stale(p.options(in, p.Renderer))
}

// Resume takes up the store's drain number drain at a step
// (reconcile.Resume) with p's renders. A drain run in steps exports no
// spans of its own.
func (p *Prepared) Resume(in Input, drain int) (*reconcile.Steps, error) {
	return reconcile.Resume(p.options(in, p.Renderer), drain)
}

// options are reconcile's options for in, rendered by renderer.
func (p *Prepared) options(in Input, renderer func(*graph.Node) (reconcile.Renderer, error)) reconcile.Options {
	return reconcile.Options{
		Graph: p.Graph, Store: in.Store, Events: in.Events, Ticks: in.Ticks, CallerInputs: in.CallerInputs,
		MaxParallel: in.MaxParallel, SignKey: in.SignKey, Now: in.Now, Committed: in.Committed, Kept: in.Kept,
		Binding: p.drainBinding(), Renderer: renderer, RenderTimeout: p.cfg.RenderTimeout,
	}
}

func (p *Prepared) run(ctx context.Context, in Input, renderer func(*graph.Node) (reconcile.Renderer, error)) (*reconcile.Result, error) {
	o := p.options(in, renderer)
	if p.Spans == nil {
		return reconcile.Drain(ctx, o)
	}
	w := p.Spans
	o.Rendering = func(ctx context.Context, n *graph.Node) (context.Context, func(error)) { return w.Render(ctx, n.ID) }
	ctx, end := w.Drain(ctx)
	res, err := reconcile.Drain(ctx, o)
	number, failed := 0, err
	if res != nil {
		number = res.Drain
		if failed == nil && res.Failed > 0 {
			failed = fmt.Errorf("%d of its renders failed", res.Failed)
		}
	}
	end(number, failed)
	return res, err
}

// executionRuns reports whether n's ### Execution runs on the
// interpreter: it has one, it is ProseScript, and n is a file's own node
// (an inline node is rendered by its binding or the model) and no
// gateway (the run core runs no gateway, and lint says an Execution does
// not apply to one: a gateway is rendered by its binding or the model,
// so one with neither is refused before the drain, not failed at each).
func executionRuns(n *graph.Node) bool {
	ex := n.Spec.Body()
	if ex == nil || n.Inline() || n.Kind == spec.KindGateway {
		return false
	}
	_, errs := syntax.Parse(n.Spec.File, ex.Lines)
	return !errs.HasErrors()
}

// unboundCallees lists, as NODE.CALLEE, the functions the Executions of
// the graph's nodes call, directly or from within the functions they
// call, that a model would render (no runnable Execution of their own)
// and no NODE.CALLEE binding binds: a drain with no model fails on them,
// so it is refused before it starts. A run binds a callee by its name
// wherever in the node's calls it is called, so a function called inside
// another is NODE.INNER too, never NODE.FN.INNER.
func (p *Prepared) unboundCallees() []string {
	var out []string
	finder := p.cfg.Specs.Finder()
	for _, n := range p.Graph.Nodes {
		if p.b.Nodes[n.ID] != nil || !p.runs[n.ID] {
			continue
		}
		bound := map[string]bool{}
		for _, a := range p.b.Callees[n.ID] {
			bound[a.Name] = true
		}
		listed := map[string]bool{}
		p.eachCallee(finder, n.Spec, func(name string, callee *spec.Spec) bool {
			switch {
			case bound[name] || listed[name] || callee == nil:
			case callee.Kind == spec.KindFunction && callee.Body() == nil:
				// No runnable Execution: a model renders it.
				listed[name] = true
				out = append(out, n.ID+"."+name)
			default:
				return true
			}
			return false
		})
	}
	return out
}

// eachCallee calls visit with the name of each call sp makes, and the
// spec it reaches (nil for none), and walks on into a function it
// reaches when visit says so: each spec of each file once.
func (p *Prepared) eachCallee(finder *spec.Finder, sp *spec.Spec, visit func(name string, callee *spec.Spec) bool) {
	visited := map[string]bool{} // file and node
	var walk func(sp *spec.Spec)
	walk = func(sp *spec.Spec) {
		key := sp.File.Name + "\x00" + sp.Name
		if visited[key] {
			return
		}
		visited[key] = true
		for _, name := range Callees(sp) {
			if name == sp.Name {
				continue
			}
			c := calleeSpec(p.cfg.Specs, finder, sp, name)
			if visit(name, c) && c != nil && c.Kind == spec.KindFunction {
				walk(c)
			}
		}
	}
	walk(sp)
}

// calleeSpec is the function or node a call of name made in sp reaches
// (an inline node or a sibling file, read through specs), nil for
// anything else.
func calleeSpec(specs *specgraph.Graph, finder *spec.Finder, sp *spec.Spec, name string) *spec.Spec {
	c := sp.ResolveCall(name, nil, finder)
	if c == nil || c.Kind != spec.CalleeNode && c.Kind != spec.CalleeSibling {
		return nil
	}
	s, _, err := specs.Callee(c)
	if err != nil {
		return nil
	}
	return s
}
