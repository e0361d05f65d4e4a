package callgraph

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Nested specs as services.
//
// A slot bound to a spec file (`--slot target=std/patterns/refine.prose.md`
// or any `PATH.prose.md`) is a NestedService: each call of the slot runs
// that spec's Delegation and the value it returns is the call's value.
//
//   - Binding. The nested spec is loaded (disk first, then the embedded
//     library for std/ paths), checked like a top-level spec, and bound with
//     the settings addressed to it by dotted names: `--slot
//     target.refiner=exec:...`, `--config target.max_rounds=2`. Every
//     message names the full dotted path ("target.refiner"). Nesting is
//     capped at MaxNestingDepth specs.
//   - List slots. Each element of a list slot bound to a spec
//     (`--slot chain=std/patterns/refine.prose.md`, repeated) is its own
//     instance, named "chain[0]", "chain[1]". `chain.NAME` settings apply
//     to every spec element (each must declare NAME); `chain[1].NAME`
//     applies to element 1 alone and replaces chain.NAME there. Programs
//     and models in the same list ignore chain.NAME and refuse
//     chain[i].NAME. An element's messages use its own path
//     ("chain[1].refiner").
//   - Arguments. The call's named arguments become the nested spec's
//     inputs. An argument named like one of its config keys sets that key
//     for this call, unless the key was given explicitly with --config. An
//     object argument whose name the nested spec does not declare is
//     unpacked: its fields fill the inputs and config keys that no
//     argument named directly (contrastive-probe's candidate_config is the
//     input object of one measurement run). Other arguments (a `prompt`
//     meant for a model, retry-with-learning's failure_history given to a
//     refine) are left out. A required input that no argument gives makes
//     that call fail with an error naming the input and the arguments
//     passed: a usage error of the delegation (kind usage, exit 1), which
//     no try catches and no enclosing pattern takes for a failed attempt,
//     since every attempt would pass the same names (retry-with-learning
//     would otherwise retry it and return null with exit 0); not a
//     command-line usage error, since no flag can supply it.
//   - Host. The nested run uses the caller, judge, recorder, runtime and
//     limits of the run it belongs to (CallRequest.Host). Its Scope is the
//     outer call's NestedScope, so its call and judgment ids read
//     "L58/3>L12/2" (and "L58/3#2>..." for the outer call's second
//     attempt): traces and journals keep every id unique and stable across
//     re-runs.
//   - Errors. A run-time error of the nested run is returned as is; the
//     evaluator adds the nested position to the outer error's chain.

// MaxNestingDepth is the deepest chain of nested specs a run may bind
// (DESIGN §2: a spec inside a spec inside ... at most 16 deep).
const MaxNestingDepth = 16

// NestedSpec is the Env.Nested hook: it builds the NestedService of a slot
// bound to a spec file, loading it with LoadSpec.
func NestedSpec(b *bind.Slot) (service.Service, error) {
	return bindNested(b, LoadSpec)
}

// NestedSpecWith is NestedSpec with another loader (tests, embedding).
func NestedSpecWith(load func(path string) (*spec.Spec, diag.List, error)) func(*bind.Slot) (service.Service, error) {
	return func(b *bind.Slot) (service.Service, error) { return bindNested(b, load) }
}

func bindNested(b *bind.Slot, load func(string) (*spec.Spec, diag.List, error)) (service.Service, error) {
	env := b.Env
	if env == nil {
		env = &bind.Env{Nested: NestedSpecWith(load)}
	}
	if env.Depth+1 > MaxNestingDepth {
		return nil, fmt.Errorf("binding %s would nest specs %d deep; the limit is %d (does a spec bind itself?)", b.Arg, env.Depth+1, MaxNestingDepth)
	}
	if sp, _, err := load(b.Arg); err == nil && isContractNode(sp) {
		return bindContractSlot(b, sp, env, load)
	}
	sp, _, err := LoadChecked(b.Arg, nil, load)
	var unreadable *bind.UsageError
	if errors.As(err, &unreadable) {
		// a plain error, so the binder names the slot: "--slot target: open x.prose.md: ..."
		return nil, errors.New(unreadable.Error())
	}
	if err != nil {
		return nil, err
	}
	slot := b.Path
	if b.Slot != nil {
		slot = b.Slot.Name
	}
	if elem := strings.TrimPrefix(b.Name, env.Prefix); strings.HasPrefix(elem, slot+"[") {
		slot = elem // one element of a list slot: its settings are chain[0].NAME
	}
	inst, err := bind.Spec(sp, b.Sub, env.Child(slot))
	if err != nil {
		return nil, err
	}
	n := &NestedService{Name: b.Name, Path: b.Path, Spec: sp, Instance: inst, explicit: map[string]bool{}}
	if b.Sub != nil {
		for _, a := range b.Sub.Config {
			n.explicit[a.Name] = true
		}
	}
	if err := n.refusal(); err != nil {
		return nil, err
	}
	return n, nil
}

// refusal runs the nested spec's own checks of its config (`throw
// usage`) with the values given explicitly by --config, which no call
// argument replaces, so that a value it would refuse (refine's threshold
// 80) stops the run before it starts instead of at the first call of the
// slot, after the outer spec's earlier calls. Defaults and keys a call
// may set are left to the call.
func (n *NestedService) refusal() error {
	b := n.Spec.Body()
	if b == nil || b.Program == nil {
		return nil
	}
	known := map[string]delegation.Value{}
	for k := range n.explicit {
		if v, ok := n.Instance.Config[k]; ok {
			known[k] = v
		}
	}
	e, st := delegation.Refusal(b.Program, known)
	if e == nil {
		return nil
	}
	flag := ""
	for _, k := range delegation.ReadNames(st) {
		if n.explicit[k] {
			flag = fmt.Sprintf(" --config %s.%s", n.Path, k)
			break
		}
	}
	return fmt.Errorf("%s refuses%s: %s: %s", n.Spec.File.Name, flag, e.Pos, e.Msg)
}

// NestedService is a slot bound to a spec: each call runs the spec's
// Delegation with the call's arguments as its inputs.
type NestedService struct {
	Name     string // the service's name: "target", "candidates[1]"
	Path     string // the slot's dotted path: "target", "outer.target"
	Spec     *spec.Spec
	Instance *bind.Instance // the spec bound to its own slots and config
	explicit map[string]bool
}

// ServiceName implements delegation.Service.
func (n *NestedService) ServiceName() string { return n.Name }

// Call implements Service: it runs the nested Delegation.
func (n *NestedService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	globals, err := n.globals(req.Args)
	if err != nil {
		return nil, err
	}
	return checkedRun(ctx, n.Spec, globals, req)
}

// nestedHost is the host of a run that the call req starts (a nested
// spec, a node's program, a pattern instance): the calling run's hooks and
// limits, with the call's NestedScope in front of every id.
func nestedHost(req *delegation.CallRequest) *delegation.Host {
	h := delegation.Host{Caller: service.Caller{}, Judge: &judge.Deterministic{}}
	if req.Host != nil {
		h = *req.Host
	}
	h.Scope = req.NestedScope()
	return &h
}

// missingInputs is the error of a call that passes no value for an input
// the nested spec requires: it names the input and what the call passed.
// It is a delegation usage error at the input's declaration (no try
// catches it), not a command-line one: no flag can fix it, only the outer
// spec's arguments or a nested spec that fits.
func (n *NestedService) missingInputs(args, given *delegation.Object) error {
	var missing []string
	at := n.Spec.Pos
	for _, in := range n.Spec.Inputs {
		if hasSlot(n.Spec, in.Name) || configEntry(n.Spec, in.Name) != nil || in.HasDefault || in.Optional {
			continue
		}
		if _, ok := given.Get(in.Name); !ok {
			if len(missing) == 0 {
				at = in.Pos
			}
			missing = append(missing, strconv.Quote(in.Name))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	passed := "no arguments"
	if args != nil && len(args.Keys()) > 0 {
		passed = "only " + strings.Join(args.Keys(), ", ")
	}
	word := "input"
	if len(missing) > 1 {
		word = "inputs"
	}
	return &delegation.Error{Pos: n.Spec.File.Position(at), Kind: delegation.KindUsage,
		Msg: fmt.Sprintf("%s (bound to %s) requires %s %s, but the call passes %s: a call's arguments are the nested spec's inputs",
			n.Spec.File.Name, n.Name, word, strings.Join(missing, ", "), passed)}
}

// declares reports whether name is an input or config key of the spec
// (slots cannot be replaced by arguments).
func (n *NestedService) declares(name string) bool {
	if hasSlot(n.Spec, name) {
		return false
	}
	if configEntry(n.Spec, name) != nil {
		return true
	}
	for _, in := range n.Spec.Inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

// globals turns the call's arguments into the nested run's globals.
func (n *NestedService) globals(args *delegation.Object) (map[string]delegation.Value, error) {
	given := delegation.NewObject()
	var unpack []*delegation.Object
	if args != nil {
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			if n.declares(k) {
				given.Set(k, v)
			} else if o, ok := v.(*delegation.Object); ok {
				unpack = append(unpack, o)
			}
		}
	}
	for _, o := range unpack {
		for _, k := range o.Keys() {
			if _, set := given.Get(k); !set && n.declares(k) {
				v, _ := o.Get(k)
				given.Set(k, v)
			}
		}
	}
	if err := n.missingInputs(args, given); err != nil {
		return nil, err
	}
	g, err := n.Instance.WithArgs(given)
	if err != nil {
		// A call's arguments are not command-line flags: report them as
		// a usage error of the delegation (exit 1, never caught), not as
		// bad command-line usage. Every attempt would pass arguments of the
		// same names, so no retry or fallback may take it for a failure.
		var ue *bind.UsageError
		if errors.As(err, &ue) {
			return nil, &delegation.Error{Pos: n.Spec.File.Position(n.Spec.Pos), Kind: delegation.KindUsage,
				Msg: fmt.Sprintf("%s (bound to %s): %s", n.Spec.File.Name, n.Name, strings.Join(ue.Messages(), "; "))}
		}
		return nil, err
	}
	for _, k := range given.Keys() {
		c := configEntry(n.Spec, k)
		if c == nil || n.explicit[k] {
			continue
		}
		v, _ := given.Get(k)
		t, err := bind.Coerce(c.Type, v)
		if err != nil {
			// the value would reach the nested spec's checks as another
			// type (a text where a number is compared): refused here
			return nil, &delegation.Error{Pos: n.Spec.File.Position(c.Pos), Kind: delegation.KindUsage,
				Msg: fmt.Sprintf("%s (bound to %s): the argument %s sets its config key %s, declared %s: %v", n.Spec.File.Name, n.Name, k, k, c.Type, err)}
		}
		g[k] = t
	}
	return g, nil
}

// configEntry is the config key of sp called name, or nil.
func configEntry(sp *spec.Spec, name string) *spec.ConfigEntry {
	for _, c := range sp.Config {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// isContractNode reports whether sp is a Contract Markdown function or
// responsibility: a spec with no Delegation whose calls are renders (or
// its Execution), not a pattern.
func isContractNode(sp *spec.Spec) bool {
	return sp != nil && sp.Contract && (sp.Kind == spec.KindFunction || sp.Kind == spec.KindResponsibility)
}

// bindContractSlot is the service of a slot bound to a function or
// responsibility (`--slot critic=std/roles/critic.prose.md`, std/FORMAT.md):
// each call of the slot is a call of that node, as a function graph calls
// it: its Execution when it has one, else its inline nodes' wiring, else
// one render of its contract by the configured model. The call's
// arguments are its inputs. Dotted settings reach its callees
// (`--slot critic.NAME=...` binds what the node calls); it has no config. Everything that would stop the run
// (Env.ContractCheck errors of the file, unresolved callees, a render with no model
// configured) is refused before anything runs, naming the slot.
func bindContractSlot(b *bind.Slot, sp *spec.Spec, env *bind.Env, load func(string) (*spec.Spec, diag.List, error)) (service.Service, error) {
	if b.Sub != nil && len(b.Sub.Config) > 0 {
		return nil, fmt.Errorf("%s is a %s: it has no config (--config %s.%s); its inputs are the call's arguments", sp.File.Name, sp.Kind, b.Path, b.Sub.Config[0].Name)
	}
	diags := env.CheckContract(sp, nil).Dedupe()
	if diags.HasErrors() {
		return nil, &SpecError{Diags: diags.Errors()}
	}
	var slots []bind.Assignment
	if b.Sub != nil {
		slots = b.Sub.Slots
	}
	g := newGraph(env, load, slots)
	svc := g.node(sp, b.Name)
	if b.Slot != nil {
		for _, p := range slotArgProblems(b.Spec, b.Slot.Name, sp, "--slot "+b.Path+"="+b.Arg) {
			g.problem("%s", p)
		}
	}
	for _, a := range slots {
		if !g.used[a.Name] {
			g.problem("--slot %s.%s: %s never calls %q%s", b.Path, a.Name, sp.File.Name, a.Name, suggestion(a.Name, sp.CallTargets(nil, g.finder)))
		}
	}
	if len(g.needModel) > 0 {
		sort.Strings(g.needModel)
		g.problem("no model is configured, and these nodes are rendered by one:\n  %s\nconfigure a model (--model or PROSE_MODEL, with OPENAI_API_KEY and OPENAI_BASE_URL), or bind %s to a program",
			strings.Join(g.needModel, "\n  "), b.Path)
	}
	g.sessionsNeedModel()
	if len(g.problems) > 0 {
		return nil, errors.New(strings.Join(g.problems, "\n"))
	}
	return checkedSlotFunc(svc, sp), nil
}
