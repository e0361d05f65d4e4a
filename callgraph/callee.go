package callgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Callees of Contract Markdown runs.
//
// A function or responsibility run builds a graph of services before
// anything starts: each call target of each program it can reach is
// resolved once (spec.ResolveCall: slot, use alias, pattern instance,
// ## node, sibling file, std/) and turned into a service:
//
//   - a node with a runnable Execution runs that program (its call's
//     arguments are its inputs, its own callees are bound the same way);
//   - a node without one is rendered by a model (Env.Render), unless
//     `--slot NAME=BINDING` binds it: a program (exec:), a model acting in
//     the role (llm[:MODEL], rendering the node's contract with that
//     model), or another spec file;
//   - a node whose inputs or outputs other inline nodes of its file
//     produce (Requires <- Maintains, Returns) is wired: the producers run
//     first, in dependency order, and the node renders last (or not at
//     all when the producers give all its outputs);
//   - a pattern instance runs the pattern's Delegation with its slots bound
//     as its with: says (or by --slot) and its config: applied; the call's
//     arguments are the pattern's inputs.
//
// The value of a call to a node with one output is that output; with
// several, an object keyed by their names. A node's result is matched to
// its outputs by the return rule: an object holding every output name is
// taken as is (other keys dropped); otherwise a node with one output binds
// the whole value to it; anything else is an error.
//
// A node fails with one of its declared ### Errors the same way whether a
// model renders it (answering {"error": NAME}) or its Execution throws it
// (`throw "NAME"`, `throw {error: NAME, message: M}`) uncaught: the
// caller's catch reads NAME as err.error (declaredThrow).
//
// A cycle between files is not refused up front (recursion may be
// bounded by the data); each nested run adds a level, and a call nested
// more than MaxNestingDepth levels fails with an error naming the node.

// callGraph builds the services of one contract run.
type callGraph struct {
	env       *bind.Env
	finder    *spec.Finder
	load      func(string) (*spec.Spec, diag.List, error)
	overrides map[string]string
	used      map[string]bool
	nodes     map[*spec.Spec]service.Service
	instances map[*spec.PatternInstance]service.Service
	specs     map[string]*spec.Spec
	needModel []string // "POS: NAME (why)", one per render
	needNames []string // the names of those renders
	problems  []string
	// warnings are the notes of the plan (a ### Runtime hint not
	// applied), once per node.
	warnings diag.List
	hinted   map[*spec.Spec]bool
	// needSession are the sessions that need a model, "POS: NAME"
	// (session.go).
	needSession []string
}

func newGraph(env *bind.Env, load func(string) (*spec.Spec, diag.List, error), slots []bind.Assignment) *callGraph {
	g := &callGraph{env: env, load: load, overrides: map[string]string{}, used: map[string]bool{},
		nodes: map[*spec.Spec]service.Service{}, instances: map[*spec.PatternInstance]service.Service{}, specs: map[string]*spec.Spec{},
		finder: env.Files()}
	for _, a := range slots {
		// A callee is one service: bound twice, the last binding would
		// silently win (a dotted name, a slot of a pattern instance, may
		// be a list slot, bound once per element, and is checked there).
		if _, twice := g.overrides[a.Name]; twice && !strings.Contains(a.Name, ".") {
			g.problem("--slot %s is given twice: %s is one callee; bind it once", a.Name, a.Name)
		}
		g.overrides[a.Name] = a.Value
	}
	return g
}

func (g *callGraph) problem(format string, args ...any) {
	g.problems = append(g.problems, fmt.Sprintf(format, args...))
}

// callee returns the service a call of name made in from reaches.
func (g *callGraph) callee(from *spec.Spec, name string, at diag.Pos) service.Service {
	if v, node := g.starFor(from, name); node != nil {
		return g.bound(name, v, node)
	}
	if v, ok := g.overrides[name]; ok {
		g.used[name] = true
		c := from.ResolveCall(name, nil, g.finder)
		var node *spec.Spec
		if c != nil && c.Kind == spec.CalleeNode {
			node = c.Node
		} else if c != nil && c.Path != "" {
			node = g.loadSpec(c.Path)
		}
		return g.bound(name, v, node)
	}
	if spec.WorldModelOp(name) {
		pos := from.File.Position(at)
		return &service.Func{Name: name, Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
			return nil, fmt.Errorf("%s: %s reads a world model, which a run of one file does not keep: drain the project (prose run DIR, or this file with --state DIR)", pos, name)
		}}
	}
	c := from.ResolveCall(name, nil, g.finder)
	if u := from.UseOf(name); c == nil && u != nil {
		g.problem("%s: call %s: use %q names no spec file beside %s and no library spec (prose lint says more)",
			from.File.Position(u.PathPos), name, u.Path, from.File.Name)
		return nil
	}
	if c == nil {
		g.problem("%s: call %s: no pattern instance, ## node, sibling file or std/ spec is named %q%s; or bind it with --slot %s=exec:COMMAND",
			from.File.Position(at), name, name, suggestion(name, from.CallTargets(nil, g.finder)), name)
		return nil
	}
	switch c.Kind {
	case spec.CalleeInstance:
		return g.instance(from.Root(), c.Instance)
	case spec.CalleeNode:
		return g.node(c.Node, name)
	}
	sp := g.loadSpec(c.Path)
	if sp == nil {
		return nil
	}
	return g.node(sp, name)
}

func suggestion(name string, cands []string) string {
	if s := bind.Closest(name, cands); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// loadSpec loads a spec file once per run; problems make it nil.
func (g *callGraph) loadSpec(path string) *spec.Spec {
	if sp, ok := g.specs[path]; ok {
		return sp
	}
	g.specs[path] = nil
	sp, diags, err := g.load(path)
	if err != nil {
		g.problem("%v", err)
		return nil
	}
	if errs := diags.Errors(); len(errs) > 0 {
		g.problem("%s: the spec has errors:\n%s", path, errs.String())
		return nil
	}
	g.specs[path] = sp
	return sp
}

// bound is the service of a --slot binding of a callee; node is what the
// name resolves to (nil when nothing), whose outputs shape the value.
func (g *callGraph) bound(name, text string, node *spec.Spec) service.Service {
	kind, arg, err := bind.Classify(text)
	if err != nil {
		g.problem("--slot %s: %v", name, err)
		return nil
	}
	switch {
	case kind == bind.KindLLM && node != nil && (node.Kind == spec.KindFunction || node.Kind == spec.KindResponsibility):
		return &nodeService{name: name, node: node, inner: g.render(node, name, arg), env: g.env}
	case kind == bind.KindSpec:
		sp := g.loadSpec(arg)
		if sp == nil {
			return nil
		}
		if sp.Kind == spec.KindPattern {
			s, err := g.env.Service(&bind.Slot{Name: name, Path: name, Value: text, Kind: kind, Arg: arg, Env: g.env})
			if err != nil {
				g.problem("--slot %s: %v", name, err)
				return nil
			}
			return s
		}
		// another function than the one the name resolves to: its
		// parameters are checked at each call (lint checked the calls
		// against the one resolved)
		return checkedSlotFunc(g.node(sp, name), sp)
	}
	s, err := g.env.Service(&bind.Slot{Spec: node, Name: name, Path: name, Value: text, Kind: kind, Arg: arg, Env: g.env})
	if err != nil {
		g.problem("--slot %s: %v", name, err)
		return nil
	}
	if node == nil {
		return s
	}
	return &nodeService{name: name, node: node, inner: s, env: g.env}
}

// node is the service of a function or responsibility called as name.
func (g *callGraph) node(n *spec.Spec, name string) service.Service {
	if s, ok := g.nodes[n]; ok {
		return s
	}
	switch n.Kind {
	case spec.KindFunction, spec.KindResponsibility:
	case spec.KindPattern:
		g.problem("%s: call %s: %s is a pattern; declare an instance of it under ### Patterns and call the instance", n.File.Position(n.Pos), name, n.Name)
		return nil
	default:
		g.problem("%s: call %s: a %s cannot be called (only functions, responsibilities and pattern instances)", n.File.Position(n.Pos), name, orKind(n.Kind))
		return nil
	}
	ns := &nodeService{name: name, node: n, env: g.env}
	g.nodes[n] = ns
	switch prog := g.program(n); {
	case prog != nil:
		ns.inner = &programService{name: name, node: n, prog: prog, callees: g.callees(n, prog)}
	default:
		ns.inner = g.render(n, name, "")
	}
	return ns
}

func orKind(k spec.Kind) string {
	if k == "" {
		return "spec without a kind"
	}
	return string(k)
}

// program is what a node runs: its Execution, or the wiring of the inline
// nodes that produce what it needs; nil when it is rendered.
func (g *callGraph) program(n *spec.Spec) *syntax.Program {
	if b := n.Body(); b != nil && n.Execution != nil {
		return b.Program
	}
	prog, err := wiring(n)
	if err != nil {
		g.problem("%v", err)
	}
	return prog
}

// callees binds every call target of prog made in n.
func (g *callGraph) callees(n *spec.Spec, prog *syntax.Program) map[string]delegation.Value {
	out := map[string]delegation.Value{}
	locals := map[string]bool{}
	for _, in := range n.Inputs {
		locals[in.Name] = true
	}
	syntax.Walk(prog, func(x syntax.Node) bool {
		if f, ok := x.(*syntax.ForExpr); ok {
			locals[f.Var.Name] = true
		}
		return true
	})
	syntax.Walk(prog, func(x syntax.Node) bool {
		c, ok := x.(*syntax.CallExpr)
		if !ok {
			return true
		}
		if c.Session != nil {
			g.bindSession(n, prog, c, out)
			return true
		}
		id, ok := c.Target.(*syntax.Ident)
		if !ok || locals[id.Name] || out[id.Name] != nil {
			return true
		}
		if id.Name == n.Name && n.Renders() {
			out[id.Name] = g.self(n)
			return true
		}
		if s := g.callee(n, id.Name, id.NamePos); s != nil {
			out[id.Name] = s
		} else {
			out[id.Name] = &service.Func{Name: id.Name, Fn: unbound(id.Name)}
		}
		return true
	})
	return out
}

// starFor is the binding `--slot '*=BINDING'` gives a call of name made
// in from, and the node it reaches: one a model would render (a function
// or a responsibility with no Execution that runs) and no --slot binds
// by its name. Decided, as a drain's `*` binds (world/drain): every
// other callee runs as it would without it. node is nil when `*` does
// not apply.
func (g *callGraph) starFor(from *spec.Spec, name string) (string, *spec.Spec) {
	if _, byName := g.overrides[name]; byName {
		return "", nil
	}
	if _, ok := g.overrides["*"]; !ok {
		return "", nil
	}
	var node *spec.Spec
	if c := from.ResolveCall(name, nil, g.finder); c != nil && c.Kind == spec.CalleeNode {
		node = c.Node
	} else if c != nil && c.Path != "" && c.Kind != spec.CalleeInstance {
		node = g.loadSpec(c.Path)
	}
	if node == nil || node.Renders() && node.Body() == nil && len(node.Nodes) > 0 {
		return "", nil // (inline nodes wire it: they are bound, not it)
	}
	if v, ok := g.star(name, node); ok {
		return v, node
	}
	return "", nil
}

// star is the `*` binding for node, when it applies: node renders and
// `*` names a program or a spec (`*=llm` is what a render does anyway).
func (g *callGraph) star(name string, node *spec.Spec) (string, bool) {
	v, ok := g.overrides["*"]
	if !ok || node == nil || !node.Renders() {
		return "", false
	}
	if _, byName := g.overrides[name]; byName {
		return "", false
	}
	if kind, _, err := bind.Classify(v); err == nil && kind == bind.KindLLM {
		g.used["*"] = true
		return "", false
	}
	g.used["*"] = true
	return v, true
}

func unbound(name string) func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
	return func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return nil, fmt.Errorf("%s is not bound to a service", name)
	}
}

// self is the service a node's own program calls it by (`return call
// NAME` of a render or of a wiring): a --slot binding of its name, else
// its render.
func (g *callGraph) self(n *spec.Spec) service.Service {
	if v, ok := g.overrides[n.Name]; ok {
		g.used[n.Name] = true
		return g.bound(n.Name, v, n)
	}
	if v, ok := g.star(n.Name, n); ok {
		return g.bound(n.Name, v, n)
	}
	return &nodeService{name: n.Name, node: n, inner: g.render(n, n.Name, ""), env: g.env}
}

// lookupEnv is os.LookupEnv (a variable for tests).
var lookupEnv = os.LookupEnv

// render is the model service of a node: Env.Render's, or a note that
// the node needs a model. A render whose ### Environment names a variable
// that is not set (or set empty) is refused before the run starts; the
// value is never shown.
func (g *callGraph) render(n *spec.Spec, name, model string) service.Service {
	for _, v := range n.Environment {
		if val, ok := lookupEnv(v); !ok || val == "" {
			g.problem("%s: %s declares the environment variable %s (### Environment), which is not set: export it before the run, or bind %s with --slot", n.File.Position(n.Pos), name, v, name)
		}
	}
	if hint, at := runtimeModel(n); hint != "" && model == "" && !g.hinted[n] {
		// ### Runtime (decided): its `model` names a model of an agent
		// host (sonnet, opus) that the configured server need not know,
		// so it is not applied; it is not ignored without a word either.
		if g.hinted == nil {
			g.hinted = map[*spec.Spec]bool{}
		}
		g.hinted[n] = true
		g.warnings.Warnf(n.File, at, CodeRuntimeHint,
			"### Runtime names the model %q for %s, a hint prose does not apply: it renders with the configured model; bind --slot %s=llm:%s to render with that model", hint, name, name, hint)
	}
	if g.env.Render != nil {
		s, err := g.env.Render(&bind.Render{Node: n, Name: name, Model: model})
		if err == nil {
			return s
		}
		if !errors.Is(err, bind.ErrNoModel) {
			g.problem("%s: %s: %v", n.File.Position(n.Pos), name, err)
			return nil
		}
	}
	g.needModel = append(g.needModel, fmt.Sprintf("%s: %s (a %s with no ```prose Execution is rendered by a model)", n.File.Position(n.Pos), name, n.Kind))
	g.needNames = append(g.needNames, name)
	return &service.Func{Name: name, Fn: unbound(name)}
}

// instance is the service of a ### Patterns instance declared in root.
func (g *callGraph) instance(root *spec.Spec, p *spec.PatternInstance) service.Service {
	if s, ok := g.instances[p]; ok {
		return s
	}
	at := root.File.Position(p.Pos)
	ps := g.patternSpec(root, p)
	if ps == nil {
		return nil
	}
	ins := &instanceService{name: p.Name, spec: ps}
	g.instances[p] = ins
	slots := map[string]delegation.Value{}
	for _, sl := range ps.Slots {
		var s service.Service
		switch target := p.Callee(sl.Name); {
		case g.overrides[p.Name+"."+sl.Name] != "":
			g.used[p.Name+"."+sl.Name] = true
			s = g.bound(p.Name+"."+sl.Name, g.overrides[p.Name+"."+sl.Name], nil)
		case target != "":
			s = g.callee(root, target, p.Pos)
		case p.NestedInstance(sl.Name) != nil:
			s = g.instance(root, p.NestedInstance(sl.Name))
		case g.overrides[sl.Name] != "":
			g.used[sl.Name] = true
			s = g.bound(sl.Name, g.overrides[sl.Name], nil)
		default:
			g.problem("%s: slot %s of pattern instance %s is not bound: add `%s: NODE` under its with:, or --slot %s.%s=exec:COMMAND",
				at, sl.Name, p.Name, sl.Name, p.Name, sl.Name)
		}
		if ns, ok := s.(*nodeService); ok {
			for _, pr := range slotArgProblems(ps, sl.Name, ns.node, fmt.Sprintf("pattern instance %s binds %s to %s", p.Name, sl.Name, ns.node.Name)) {
				g.problem("%s", pr)
			}
			s = checkedSlotFunc(s, ns.node)
		}
		if s != nil {
			slots[sl.Name] = s
		}
	}
	for _, w := range p.With {
		if !hasSlot(ps, w.Slot) {
			g.problem("%s: pattern instance %s binds %q, which %s does not declare as a slot%s", at, p.Name, w.Slot, ps.Name, suggestion(w.Slot, slotNames(ps)))
		}
	}
	cfg, err := bind.Config(ps, configAssignments(p.Config), g.env.Child(p.Name))
	var ue *bind.UsageError
	if errors.As(err, &ue) {
		for _, pr := range ue.Problems {
			g.problem("%s: pattern instance %s: %s", at, p.Name, pr)
		}
	}
	ins.inst = &bind.Instance{Spec: ps, Slots: slots, Config: cfg, Env: g.env.Child(p.Name)}
	return ins
}

func hasSlot(sp *spec.Spec, name string) bool {
	for _, s := range sp.Slots {
		if s.Name == name {
			return true
		}
	}
	return false
}

func hasConfig(sp *spec.Spec, name string) bool {
	for _, c := range sp.Config {
		if c.Name == name {
			return true
		}
	}
	return false
}

func slotNames(sp *spec.Spec) []string {
	var out []string
	for _, s := range sp.Slots {
		out = append(out, s.Name)
	}
	return out
}

// patternSpec loads the pattern an instance names.
func (g *callGraph) patternSpec(root *spec.Spec, p *spec.PatternInstance) *spec.Spec {
	at := root.File.Position(p.Pos)
	name := p.Pattern
	var ps *spec.Spec
	if n := root.Node(name); n != nil && n.Kind == spec.KindPattern {
		ps = n
	} else if c := root.ResolveCall(name, nil, g.finder); c != nil && c.Path != "" {
		ps = g.loadSpec(c.Path)
		if ps == nil {
			return nil
		}
	} else if c := root.ResolveCall(strings.TrimPrefix(name, "./"), nil, g.finder); c != nil && c.Path != "" {
		ps = g.loadSpec(c.Path)
	}
	if ps == nil {
		g.problem("%s: pattern instance %s: no pattern file %q beside %s or in the library", at, p.Name, name, root.File.Name)
		return nil
	}
	if ps.Kind != spec.KindPattern || ps.Delegation == nil || ps.Delegation.Program == nil {
		g.problem("%s: pattern instance %s: %s is a %s with no ```prose Delegation, not a pattern", at, p.Name, ps.File.Name, orKind(ps.Kind))
		return nil
	}
	return ps
}

// configAssignments writes an instance's config: values as --config text.
func configAssignments(cfg map[string]any) []bind.Assignment {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]bind.Assignment, 0, len(keys))
	for _, k := range keys {
		var text string
		switch v := cfg[k].(type) {
		case string:
			text = v
		default:
			raw, _ := json.Marshal(v)
			text = string(raw)
		}
		out = append(out, bind.Assignment{Name: k, Value: text})
	}
	return out
}

// nodeService is a callee that stands for a node: whatever serves it
// (its program, a render, a binding), the value is shaped by the node's
// outputs and unwrapped when there is one.
type nodeService struct {
	name  string
	node  *spec.Spec
	inner service.Service
	// env resolves the run ids passed for inputs typed run or run[]
	// (runArgs).
	env *bind.Env
}

func (s *nodeService) ServiceName() string { return s.name }

func (s *nodeService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	if s.inner == nil {
		return nil, fmt.Errorf("%s is not bound to a service", s.name)
	}
	if args := withDefaults(s.node, req.Args); args != req.Args {
		r := *req
		r.Args = args
		req = &r
	}
	if err := typedArgs(s.node, s.name, req.Args); err != nil {
		return nil, err
	}
	args, err := runArgs(s.env, s.node, s.name, req.Args)
	if err != nil {
		return nil, err
	}
	if args != req.Args {
		r := *req
		r.Args = args
		req = &r
	}
	v, err := s.inner.Call(ctx, req)
	if err != nil {
		return nil, declaredThrow(s.node, s.name, err)
	}
	if err := answeredError(s.node, s.name, v); err != nil {
		return nil, err
	}
	obj, err := Outputs(s.node, v)
	if err != nil {
		return nil, err
	}
	if len(s.node.Outputs) == 1 {
		x, _ := obj.Get(s.node.Outputs[0].Name)
		return x, nil
	}
	return obj, nil
}

// declaredThrow makes an uncaught throw of one of node n's declared
// ### Errors, `throw "NAME"` or `throw {error: "NAME", message: ...}` in
// its Execution, the same failure as a render answering that error: the
// caller's catch reads its name as err.error. Any other error is returned
// as it is.
func declaredThrow(n *spec.Spec, name string, err error) error {
	var e *delegation.Error
	if !errors.As(err, &e) || e.Kind != delegation.KindThrow || len(n.Errors) == 0 {
		return err
	}
	var thrown, msg string
	switch v := e.Value.(type) {
	case string:
		thrown = v
	case *delegation.Object:
		x, _ := v.Get("error")
		thrown, _ = x.(string)
		m, _ := v.Get("message")
		msg, _ = m.(string)
	}
	if thrown == "" || n.Error(thrown) == nil {
		return err
	}
	return &llm.DeclaredError{Name: thrown, Message: msg, Node: name, Pos: e.Pos.String()}
}

// answeredError reads an answer that is an error object rather than the
// node's outputs: `{"error": NAME}`, with at most a `message` beside it,
// from a node that declares no output of either name. Naming one of the
// node's ### Errors, it is that declared error, as a render's answer of
// it is (a program bound to the node fails a call the way a model does,
// and the caller's catch reads the name as err.error). Decided: naming
// no declared error, it is an error of the call, not a value: the return
// rule would make the whole object a one-output node's output, a report
// of failure read on as a result with exit 0. A program that fails
// otherwise exits non-zero.
func answeredError(n *spec.Spec, name string, v delegation.Value) error {
	o, ok := v.(*delegation.Object)
	if !ok {
		return nil
	}
	x, has := o.Get("error")
	errName, isText := x.(string)
	if !has || !isText {
		return nil
	}
	for _, k := range o.Keys() {
		if k != "error" && k != "message" {
			return nil
		}
	}
	for _, d := range n.Outputs {
		if d.Name == "error" || d.Name == "message" {
			return nil
		}
	}
	m, _ := o.Get("message")
	msg, _ := m.(string)
	at := n.File.Position(n.Pos).String()
	if n.Error(errName) != nil {
		return &llm.DeclaredError{Name: errName, Message: msg, Node: name, Pos: at}
	}
	fix := "it declares no ### Errors: declare it there to let a caller catch it by name, or exit non-zero to fail the call"
	if len(n.Errors) > 0 {
		names := make([]string, len(n.Errors))
		for i, e := range n.Errors {
			names[i] = e.Name
		}
		fix = "it declares " + strings.Join(names, ", ") + ": answer one of those by name, declare it under ### Errors, or exit non-zero to fail the call"
	}
	if msg != "" {
		msg = ": " + msg
	}
	return fmt.Errorf("%s: %s answered the error %q%s, not its outputs, and %s", at, name, errName, msg, fix)
}

// optionalLeftOut reports whether object o may leave out output d:
// decided, an output declared optional (`note` (string, optional)) may
// be missing, and is then null, as a pattern's may (upstream lets an
// optional output go unsaid), unless a key of o misspells it ({"nots":
// ...} for notes), which would be dropped with the value meant.
func optionalLeftOut(d *spec.Output, o *delegation.Object) bool {
	if !d.Optional {
		return false
	}
	// a short name is near every other short one: only a difference of
	// case, hyphens or underscores misspells it
	limit := func(name, _ string) int {
		if len(name) < 4 {
			return 0
		}
		return didyoumean.Third(name, "")
	}
	if near := (didyoumean.Matcher{Fold: didyoumean.Loose, Limit: limit}).Closest(d.Name, o.Keys()); near != "" {
		return false
	}
	return true
}

// Outputs applies the return rule of a function or responsibility to the
// value its run gave: an object with every output name is kept (only
// those keys, in declared order); with one output, any other value is
// bound to it; otherwise it is an error. A node that declares no outputs
// gives an object only when its value is one. A ### Maintains with
// `####` facets follows Truth's rule.
//
// Each output's value is then checked against its declared type (`count`
// (integer)); null passes (an output may be empty), a value of another
// type is an error naming the output, its type and the value.
func Outputs(n *spec.Spec, v delegation.Value) (*delegation.Object, error) {
	return outputsAt(n, v, nodePos(n))
}

// outputsAt is Outputs, its errors reported at at (the return that gave v).
func outputsAt(n *spec.Spec, v delegation.Value, at diag.Pos) (*delegation.Object, error) {
	out, err := shapeOutputs(n, v, at)
	if err != nil {
		return nil, err
	}
	if err := typedOutputs(n, out, at); err != nil {
		return nil, err
	}
	return out, postconditions(n, out, at)
}

func shapeOutputs(n *spec.Spec, v delegation.Value, at diag.Pos) (*delegation.Object, error) {
	if HasFacets(n) {
		return Truth(n, v) // truth.go
	}
	o, isObj := v.(*delegation.Object)
	if len(n.Outputs) == 0 {
		if isObj {
			return o, nil
		}
		out := delegation.NewObject()
		out.Set("result", v)
		return out, nil
	}
	if isObj {
		out := delegation.NewObject()
		all, some := true, false
		for _, d := range n.Outputs {
			x, ok := o.Get(d.Name)
			if !ok && !optionalLeftOut(d, o) {
				all = false
				break
			}
			some = some || ok
			out.Set(d.Name, x)
		}
		if all && some {
			return out, nil
		}
	}
	if len(n.Outputs) == 1 {
		// An object whose key misspells the one output ({"txt": ...}
		// for `text`) would become the output whole; it is refused, as
		// lint refuses such a return (check/return-shape). Other keys
		// make an object meant as the output's value.
		name := n.Outputs[0].Name
		if isObj && !n.Outputs[0].Facet {
			for _, k := range o.Keys() {
				if bind.Closest(k, []string{name}) == name {
					return nil, fmt.Errorf("%s: %s returns an object with the key %q and not its output %q: answer {%q: VALUE}, or the value itself",
						n.File.Position(at), n.Name, k, name, name)
				}
			}
		}
		out := delegation.NewObject()
		out.Set(name, v)
		return out, nil
	}
	var names, missing []string
	for _, d := range n.Outputs {
		names = append(names, d.Name)
		if !isObj {
			continue
		}
		if _, ok := o.Get(d.Name); !ok {
			missing = append(missing, strconv.Quote(d.Name))
		}
	}
	got := delegation.TypeName(v)
	if len(missing) > 0 {
		// name what the object lacks, not only that it is an object
		word := "key"
		if len(missing) > 1 {
			word = "keys"
		}
		got = fmt.Sprintf("an object without the %s %s", word, strings.Join(missing, ", "))
	}
	return nil, fmt.Errorf("%s: %s returns %s, but it declares %d outputs (%s): return an object with those keys",
		n.File.Position(at), n.Name, got, len(names), strings.Join(names, ", "))
}

func nodePos(n *spec.Spec) diag.Pos {
	if n.Execution != nil && n.Execution.Pos > 0 {
		return n.Execution.Pos
	}
	return n.Pos
}

// programService runs a node's program for each call: the call's
// arguments are its inputs.
type programService struct {
	name    string
	node    *spec.Spec
	prog    *syntax.Program
	callees map[string]delegation.Value
}

func (s *programService) ServiceName() string { return s.name }

func (s *programService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	if req.Path.Depth() >= MaxNestingDepth {
		return nil, fmt.Errorf("%s: calling %s would nest more than %d calls deep (calls between files that never end? %s)",
			s.node.File.Position(s.node.Pos), s.name, MaxNestingDepth, req.Path)
	}
	globals, err := nodeGlobals(s.node, req.Args, s.callees)
	if err != nil {
		return nil, err
	}
	v, returned, err := delegation.RunReturned(ctx, s.prog, globals, nestedHost(req))
	if err == nil && !returned {
		if b := s.node.Body(); b != nil && s.node.Execution != nil && b.Program == s.prog {
			err = endedWithoutReturn(s.node)
		}
	}
	return v, err
}

// nodeGlobals are the names a node's program starts with: its inputs from
// args (its default for one not given, or given null, which is its
// absence: callgraph.typedArgs; null for an optional one), other
// arguments as given, and its callees. A default of an input typed run
// is not bound here (no run directory is at hand); such an input not
// passed is an error, as a required one's is (TestNodeGlobalsDefaults).
func nodeGlobals(n *spec.Spec, args *delegation.Object, callees map[string]delegation.Value) (map[string]delegation.Value, error) {
	g := map[string]delegation.Value{}
	for k, v := range callees {
		g[k] = v
	}
	if args != nil {
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			g[k] = v
		}
	}
	var missing []string
	for _, in := range n.Inputs {
		if v, ok := g[in.Name]; ok && (v != nil || !in.HasDefault) {
			continue
		}
		switch {
		case in.HasDefault && !bind.IsRunType(in.Type):
			g[in.Name] = in.Default
			continue
		case !in.Optional:
			missing = append(missing, in.Name)
		}
		g[in.Name] = nil
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: %s needs %s, which the call does not pass", n.File.Position(n.Pos), n.Name, strings.Join(missing, ", "))
	}
	return g, nil
}

// instanceService runs a pattern instance: the pattern's Delegation with
// its bound slots and config, the call's arguments as its inputs.
type instanceService struct {
	name string
	spec *spec.Spec
	inst *bind.Instance
}

func (s *instanceService) ServiceName() string { return s.name }

func (s *instanceService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	if req.Path.Depth() >= MaxNestingDepth {
		return nil, fmt.Errorf("pattern instance %s would nest more than %d calls deep", s.name, MaxNestingDepth)
	}
	if req.Args != nil {
		// the instance binds its slots and config for every call (lint
		// reports such an argument, lint/unknown-argument)
		for _, k := range req.Args.Keys() {
			if hasSlot(s.spec, k) || hasConfig(s.spec, k) {
				return nil, fmt.Errorf("pattern instance %s: the call passes %s, which the instance binds (a slot under with:, a config key under config:): set it there", s.name, k)
			}
		}
	}
	var g map[string]delegation.Value
	if len(s.spec.Inputs) > 0 {
		var err error
		if g, err = s.inst.WithArgs(req.Args); err != nil {
			return nil, fmt.Errorf("pattern instance %s: %v", s.name, err)
		}
	} else {
		g = s.inst.Globals()
	}
	if req.Args != nil {
		for _, k := range req.Args.Keys() {
			if _, bound := g[k]; !bound {
				g[k], _ = req.Args.Get(k)
			}
		}
	}
	required := s.spec.ImpliedRequired()
	for _, name := range s.spec.ImpliedInputs() {
		if _, ok := g[name]; !ok {
			if slices.Contains(required, name) {
				return nil, fmt.Errorf("pattern instance %s: the call does not pass %q, which a slot of %s requires: add %s: VALUE under the call", s.name, name, s.spec.Name, name)
			}
			g[name] = nil
		}
	}
	return checkedRun(ctx, s.spec, g, req)
}

// CodeRuntimeHint is the warning for a ### Runtime model hint a run does
// not apply.
const CodeRuntimeHint = "run/runtime-hint"

// runtimeModel is the `model` item of n's ### Runtime section and its
// position ("" when there is none).
func runtimeModel(n *spec.Spec) (string, diag.Pos) {
	for _, sec := range n.Sections {
		if sec.Key != "runtime" {
			continue
		}
		off := sec.BodyPos
		for _, line := range strings.SplitAfter(sec.Body, "\n") {
			item := strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(item, "- "); ok {
				key, val, ok := strings.Cut(rest, ":")
				if ok && strings.Trim(strings.TrimSpace(key), "`*") == "model" {
					if v := strings.Trim(strings.TrimSpace(val), "`\"'"); v != "" {
						return v, off
					}
				}
			}
			off += diag.Pos(len(line))
		}
		return "", sec.Pos
	}
	return "", 0
}
