package callgraph

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
)

// Running a function or a responsibility (Contract Markdown).
//
// `prose run FILE` on a function or responsibility runs it once and gives
// its outputs as an object keyed by their names. What runs is a program,
// so that every render is an ordinary call of the evaluator (traced,
// journaled, resumed and replayed like any other):
//
//   - the file's ```prose Execution, when it has one;
//   - else, when inline nodes produce what it needs, the wiring of those
//     nodes (see wiring);
//   - else one call of the node itself, rendered by a model or served by
//     a --slot binding of its own name: `return call NAME` with every
//     input passed.
//
// The program's calls are written at the .md offsets of the nodes they
// call, so call ids and error positions name the nodes.
//
// Inputs come from --input and --input-json (hyphenated names as written);
// a function takes no --config. Everything that would stop the run is
// reported before it starts (exit 2): unknown or missing inputs, call
// targets that resolve to nothing, --slot names that name no callee, and
// the nodes that need a model when none is configured (with the --slot
// bindings that would serve them instead). A gateway or a test is refused
// by the host (package runhost) with a message saying what runs it.

// Plan is the prepared run of a function or responsibility: the program
// that runs it, the names it starts with (its callees' services and its
// inputs) and the warnings found while planning it.
type Plan struct {
	Node     *spec.Spec
	Program  *syntax.Program
	Globals  map[string]delegation.Value
	Warnings diag.List
}

// CodeUnusedBinding is the warning for a --slot binding that nothing in
// the run uses.
const CodeUnusedBinding = "run/unused-binding"

func (c *Plan) unused(sp *spec.Spec, format string, args ...any) {
	c.Warnings.Warnf(sp.File, sp.Pos, CodeUnusedBinding, format, args...)
}

// Run executes the plan on host and shapes the value into the outputs.
func (c *Plan) Run(ctx context.Context, host *delegation.Host) (delegation.Value, error) {
	g := make(map[string]delegation.Value, len(c.Globals))
	for k, v := range c.Globals {
		g[k] = bind.Clone(v)
	}
	v, returned, err := delegation.RunReturned(ctx, c.Program, g, host)
	if err != nil {
		return nil, err
	}
	if b := c.Node.Body(); b != nil && c.Node.Execution != nil && b.Program == c.Program {
		if !returned {
			if err := endedWithoutReturn(c.Node); err != nil {
				return nil, err
			}
		}
		return checkReturn(c.Node, c.Program, v)
	}
	return Outputs(c.Node, v)
}

// PlanContract builds the program, the services and the inputs of a run
// of sp, a function or responsibility, given its settings: every problem
// that would stop the run is reported before it starts, at once, in a
// *bind.UsageError.
func PlanContract(sp *spec.Spec, env *bind.Env, load func(string) (*spec.Spec, diag.List, error), b *bind.Settings) (*Plan, error) {
	if len(b.Config) > 0 {
		return nil, bind.Usagef("--config %s: a %s has no config (its inputs are given with --input)", b.Config[0].Name, sp.Kind)
	}
	g := newGraph(env, load, b.Slots)
	plan := &Plan{Node: sp, Globals: map[string]delegation.Value{}}
	prog := g.program(sp)
	_, own := g.overrides[sp.Name]
	self := prog == nil || own && sp.Body() == nil && allProduced(sp)
	if self {
		// rendered, or bound by its own name although its inline nodes
		// give all its outputs: the binding then serves the whole file
		// in place of their wiring (when they give only some, the wiring
		// ends in a call of the file's render, which the binding serves)
		prog = selfCall(sp)
	}
	plan.Program = prog
	var reached []string // the names this run's program calls
	for k, v := range g.callees(sp, prog) {
		plan.Globals[k] = v
		reached = append(reached, k)
	}
	inputs := rootInputs(sp, prog, self)
	given, badJSON := givenInputs(b, inputs, g, sp.File)
	for _, in := range inputs {
		if v, ok := given[in.Name]; ok {
			plan.Globals[in.Name] = v
		} else if in.HasDefault && bind.IsRunType(in.Type) {
			if d, err := delegation.FromGo(in.Default); err == nil {
				plan.Globals[in.Name] = g.runInput(sp.File, in, d, nil, false, "the default of")
			}
		} else if in.HasDefault {
			plan.Globals[in.Name] = in.Default
		} else if in.Optional {
			plan.Globals[in.Name] = nil
		} else if !badJSON {
			// (an --input-json that does not read is the problem then)
			g.problem("%s: input %q is missing: pass --input %s=VALUE%s", sp.File.Position(in.Pos), in.Name, in.Name, nearProducer(sp, in.Name))
		}
	}
	// A --slot that nothing in the run uses is a warning naming it (the
	// run goes on without it), unless its name is close to a callee's:
	// that is taken for a typo and refused with the name meant, since the
	// callee it misses would run unbound or by a model (issue 18, item 11).
	targets := append(sp.CallTargets(nil, g.finder), sp.Name)
	// A near miss is looked for among the names the run reaches (and
	// the spec's own), not every file a call could name: a sibling that
	// nothing calls is no binding the user meant.
	for k := range g.used {
		reached = append(reached, k)
	}
	reached = append(reached, sp.Name)
	for _, a := range b.Slots {
		switch {
		case g.used[a.Name]:
		case a.Name == sp.Name && sp.Body() != nil:
			plan.unused(sp, "--slot %s is not used: %s runs its ### Execution and is not rendered: bind the callees it calls instead", a.Name, a.Name)
		case slices.Contains(targets, a.Name):
			plan.unused(sp, "--slot %s is not used: %s is a callee of %s that this run never reaches: nothing it runs calls it", a.Name, a.Name, sp.File.Name)
		case bind.Closest(a.Name, reached) != "":
			g.problem("--slot %s: no callee of %s is named %q%s", a.Name, sp.File.Name, a.Name, suggestion(a.Name, reached))
		default:
			plan.unused(sp, "--slot %s is not used: no callee of %s is named %q", a.Name, sp.File.Name, a.Name)
		}
	}
	plan.Warnings = append(plan.Warnings, g.warnings...)
	if len(g.needModel) > 0 {
		sort.Strings(g.needModel)
		names := g.needNames
		sort.Strings(names)
		g.problem("no model is configured, and these nodes are rendered by one:\n  %s\nconfigure a model (--model or PROSE_MODEL, with OPENAI_API_KEY and OPENAI_BASE_URL), or bind each node to a program: %s",
			strings.Join(g.needModel, "\n  "), bindHint(names))
	}
	g.sessionsNeedModel()
	if len(g.problems) > 0 {
		return nil, &bind.UsageError{Problems: bind.Others(g.problems)}
	}
	return plan, nil
}

func bindHint(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, "--slot "+n+"=exec:COMMAND")
	}
	return strings.Join(out, " ")
}

// rootInputs are the inputs a run takes: the file node's, plus, when the
// program wires inline nodes, theirs that no node produces.
func rootInputs(sp *spec.Spec, prog *syntax.Program, self bool) []*spec.Input {
	out := append([]*spec.Input(nil), sp.Inputs...)
	// The names of its own truth an Execution reads are its prior truth's
	// members: optional inputs, null on a cold start (a world model drain
	// passes them).
	for _, name := range sp.PriorNames() {
		out = append(out, &spec.Input{Name: name, Optional: true, Description: "the prior truth's " + name})
	}
	if self || sp.Execution != nil && sp.Execution.Program == prog {
		return out
	}
	produced := producers(sp)
	seen := map[string]bool{}
	var keep []*spec.Input
	for _, in := range out {
		if produced[in.Name] == nil {
			keep = append(keep, in)
			seen[in.Name] = true
		}
	}
	for _, n := range sp.Nodes {
		for _, in := range n.Inputs {
			if produced[in.Name] == nil && !seen[in.Name] && wiredNode(sp, n) {
				keep = append(keep, in)
				seen[in.Name] = true
			}
		}
	}
	return keep
}

// givenInputs reads --input and --input-json against the run's inputs,
// declared in file; badJSON is true when --input-json does not read as an
// object.
func givenInputs(b *bind.Settings, inputs []*spec.Input, g *callGraph, file *diag.File) (given map[string]delegation.Value, badJSON bool) {
	known := map[string]bool{}
	var names []string
	for _, in := range inputs {
		known[in.Name] = true
		names = append(names, in.Name)
	}
	out := map[string]delegation.Value{}
	if b.InputJSON != "" {
		v, err := delegation.FromJSON([]byte(b.InputJSON))
		o, isObj := v.(*delegation.Object)
		switch {
		case err != nil:
			g.problem("--input-json: %v", err)
			badJSON = true
		case !isObj:
			g.problem("--input-json: want one JSON object of inputs, got %s", delegation.TypeName(v))
			badJSON = true
		default:
			for _, k := range o.Keys() {
				v, _ := o.Get(k)
				out[k] = v
				// A JSON value is checked against the declared type as
				// --input text is parsed by it (bind.Coerce: an integral
				// number is an integer; text is never a number).
				if in := inputNamed(inputs, k); in != nil && bind.IsRunType(in.Type) {
					out[k] = g.runInput(file, in, v, nil, false, "--input-json")
				} else if in != nil && in.Type != "" {
					c, err := bind.Coerce(in.Type, v)
					if err != nil {
						g.problem("--input-json %s: %v", k, err)
					}
					out[k] = c
				}
			}
		}
	}
	// A name is given once: by one --input (a list input by one --input
	// per element), or by a key of --input-json. A second value never
	// silently replaces the first (decided: there is no precedence rule
	// between the flags to document, so both are named in an error).
	texts := map[string][]string{}
	var order []string
	for _, a := range b.Inputs {
		if _, inJSON := out[a.Name]; inJSON && texts[a.Name] == nil {
			g.problem("input %q given twice (--input-json and --input %s=...): give it once", a.Name, a.Name)
			continue
		}
		if texts[a.Name] == nil {
			order = append(order, a.Name)
		}
		texts[a.Name] = append(texts[a.Name], a.Value)
	}
	for _, name := range order {
		vals := texts[name]
		out[name] = vals[len(vals)-1]
		in := inputNamed(inputs, name)
		typed := in != nil && in.Type != "" && !bind.IsRunType(in.Type)
		switch {
		case in != nil && bind.IsRunType(in.Type):
			out[name] = g.runInput(file, in, nil, vals, true, "--input")
		case typed || len(vals) > 1:
			typ := ""
			if typed {
				typ = in.Type
			}
			v, err := bind.ParseValues(typ, vals)
			if err != nil {
				g.problem("--input %s: %v", name, err)
			}
			out[name] = v
		}
	}
	for _, a := range b.Absent {
		out[a.Name] = &delegation.Absent{Name: a.Name, Producer: a.Value}
	}
	for k := range out {
		if !known[k] {
			g.problem("unknown input %q%s", k, suggestion(k, names))
		}
	}
	return out, badJSON
}

// nearProducer names an output of an inline node of sp, wired without
// an Execution, whose name is close to the missing input name (`note`
// for `notes`): the node was meant to give it, and a run given the input
// on the command line would leave the node unused. "" when none is
// close.
func nearProducer(sp *spec.Spec, name string) string {
	if !sp.Renders() || len(name) < 4 {
		// an Execution says where its values come from; a short name
		// is near too many others to guess
		return ""
	}
	for _, n := range sp.Nodes {
		var outs []string
		for _, o := range n.Outputs {
			outs = append(outs, o.Name)
		}
		near := (didyoumean.Matcher{Fold: didyoumean.Loose}).Closest(name, outs)
		if near == "" || near == name {
			continue
		}
		for _, o := range n.Outputs {
			if o.Name == near {
				return fmt.Sprintf(" (## %s gives %q, at %s: name it %s to feed this input)", n.Name, near, n.File.Position(o.Pos), name)
			}
		}
	}
	return ""
}

// runInput binds the value given for an input typed run or run[]
// (bind.Env.RunInput): its warnings are the plan's, at the input's
// declaration; an error is a problem naming the input (src its flag).
func (g *callGraph) runInput(file *diag.File, in *spec.Input, v delegation.Value, texts []string, fromText bool, src string) delegation.Value {
	out, warnings, err := g.env.RunInput(in.Type, v, texts, fromText)
	if err != nil {
		g.problem("%s %s: %v", src, in.Name, err)
		return nil
	}
	for _, w := range warnings {
		g.warnings.Warnf(file, in.Pos, bind.CodeRunInput, "input %s: %s", in.Name, w)
	}
	return out
}

// inputNamed is the input called name, or nil.
func inputNamed(inputs []*spec.Input, name string) *spec.Input {
	for _, in := range inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// selfCall is the program of a node run as one call of itself:
// `return call NAME` passing every input, written at the node's offset.
func selfCall(n *spec.Spec) *syntax.Program {
	at := n.Pos
	// The call's errors point at the node's name (a file's `name:`
	// value, an inline node's heading), where the other messages of its
	// render point: the line is placed so that `call` starts there.
	const lead = len("return ")
	off := at
	if int(at) >= lead {
		off = at - diag.Pos(lead)
	}
	lines := []syntax.Line{{Text: "return call " + n.Name, Off: off}}
	for _, in := range n.Inputs {
		lines = append(lines, syntax.Line{Text: "  " + in.Name + ": " + in.Name, Off: at})
	}
	prog, _ := syntax.Parse(n.File, lines)
	return prog
}

// producers maps each name an inline node of sp gives (Maintains,
// Returns) to the first node giving it.
func producers(sp *spec.Spec) map[string]*spec.Spec {
	out := map[string]*spec.Spec{}
	for _, n := range sp.Nodes {
		if n.Kind != spec.KindFunction && n.Kind != spec.KindResponsibility {
			continue
		}
		for _, o := range n.Outputs {
			if out[o.Name] == nil {
				out[o.Name] = n
			}
		}
	}
	return out
}

// wiredNode reports whether n takes part in the wiring of sp.
func wiredNode(sp *spec.Spec, n *spec.Spec) bool {
	for _, s := range wiringOrder(sp) {
		if s == n {
			return true
		}
	}
	return false
}

// wiringOrder lists the inline nodes that produce what sp needs, each
// after the nodes producing its own needs. When they produce every output
// of sp, sp itself is not rendered (its outputs come from them).
func wiringOrder(sp *spec.Spec) []*spec.Spec {
	produced := producers(sp)
	var order []*spec.Spec
	state := map[*spec.Spec]int{} // 1 visiting, 2 done
	var visit func(n *spec.Spec)
	visit = func(n *spec.Spec) {
		if state[n] != 0 {
			return
		}
		state[n] = 1
		for _, in := range n.Inputs {
			if p := produced[in.Name]; p != nil && p != n {
				visit(p)
			}
		}
		state[n] = 2
		order = append(order, n)
	}
	for _, name := range needs(sp) {
		if p := produced[name]; p != nil {
			visit(p)
		}
	}
	return order
}

// allProduced reports whether sp's inline nodes give every output of sp.
func allProduced(sp *spec.Spec) bool {
	produced := producers(sp)
	for _, o := range sp.Outputs {
		if produced[o.Name] == nil {
			return false
		}
	}
	return len(sp.Outputs) > 0
}

// needs are the names sp's run needs from producers: its outputs when
// inline nodes give them all, else its inputs.
func needs(sp *spec.Spec) []string {
	produced := producers(sp)
	var outs, ins []string
	all := len(sp.Outputs) > 0
	for _, o := range sp.Outputs {
		outs = append(outs, o.Name)
		if produced[o.Name] == nil {
			all = false
		}
	}
	if all {
		return outs
	}
	for _, in := range sp.Inputs {
		ins = append(ins, in.Name)
	}
	return ins
}

// wiring writes the program that runs sp's producing nodes in order and
// then renders sp (unless they give all its outputs):
//
//	let raw-notes = call collector      # at the ## collector heading
//	  subject: subject
//	return call smoke-auto-wiring       # at the file's start
//	  raw-notes: raw-notes
//
// A node with several outputs is bound to __NODE and each output taken
// from it. nil when no inline node produces anything sp needs.
func wiring(sp *spec.Spec) (*syntax.Program, error) {
	if len(sp.Nodes) == 0 || !sp.Renders() {
		return nil, nil
	}
	order := wiringOrder(sp)
	if len(order) == 0 {
		return nil, nil
	}
	var lines []syntax.Line
	add := func(at diag.Pos, text string) { lines = append(lines, syntax.Line{Text: text, Off: at}) }
	for _, n := range order {
		head := "let __" + n.Name + " = call " + n.Name
		if len(n.Outputs) == 1 {
			head = "let " + n.Outputs[0].Name + " = call " + n.Name
		}
		add(n.Pos, head)
		for _, in := range n.Inputs {
			add(n.Pos, "  "+in.Name+": "+in.Name)
		}
		if len(n.Outputs) > 1 {
			for _, o := range n.Outputs {
				add(n.Pos, "let "+o.Name+" = __"+n.Name+"."+o.Name)
			}
		}
	}
	produced := producers(sp)
	all := len(sp.Outputs) > 0
	for _, o := range sp.Outputs {
		all = all && produced[o.Name] != nil
	}
	if all {
		fields := make([]string, 0, len(sp.Outputs))
		for _, o := range sp.Outputs {
			fields = append(fields, o.Name+": "+o.Name)
		}
		add(sp.Pos, "return { "+strings.Join(fields, ", ")+" }")
	} else {
		add(sp.Pos, "return call "+sp.Name)
		for _, in := range sp.Inputs {
			add(sp.Pos, "  "+in.Name+": "+in.Name)
		}
	}
	prog, diags := syntax.Parse(sp.File, lines)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: the nodes of %s cannot be wired by name: %s", sp.File.Position(sp.Pos), sp.Name, diags.Errors().String())
	}
	return prog, nil
}
