package runhost

import (
	"errors"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Running a function or a responsibility (Contract Markdown): the plan
// of what runs is package callgraph's (callgraph.PlanContract); here it
// becomes a Prepared like a pattern's.

// prepareContract prepares the run of a Contract Markdown function or
// responsibility; ok is false for any other spec (opts.Spec is then left
// as it was, and Prepare goes on as for a pattern).
func prepareContract(opts *RunOptions) (p *Prepared, ok bool, err error) {
	sp := opts.Spec
	var diags diag.List
	load := opts.Load
	if load == nil {
		load = callgraph.LoadSpec
	}
	if sp == nil {
		if sp, diags, err = load(opts.Path); err != nil {
			return nil, true, bind.Usagef("%v", err)
		}
	}
	if !sp.Contract || sp.Kind == spec.KindPattern || sp.Kind == "" {
		return nil, false, nil
	}
	switch sp.Kind {
	case spec.KindGateway:
		return nil, true, bind.Usagef("%s is a gateway: it is driven from outside (a schedule, a route, an event) and prose run does not run gateways; run a function or responsibility instead", sp.File.Name)
	case spec.KindTest:
		return nil, true, bind.Usagef("%s is a test: run it with prose test %s", sp.File.Name, sp.File.Name)
	case spec.KindFunction, spec.KindResponsibility:
	default:
		return nil, true, bind.Usagef("%s: kind %q cannot be run: prose run takes a pattern, a function or a responsibility", sp.File.Name, sp.Kind)
	}
	env := opts.Env
	if env == nil {
		env = &bind.Env{}
	}
	diags = append(diags, env.CheckContract(sp, diags)...)
	diags = diags.Dedupe()
	if diags.HasErrors() {
		return nil, true, &callgraph.SpecError{Diags: diags.Errors()}
	}
	if opts.ModelJudge == nil && opts.ModelJudgeFor != nil {
		opts.ModelJudge = opts.ModelJudgeFor(sp)
	}
	// Everything known before the run in one report: the plan's problems
	// (inputs, callees, bindings, programs, renders with no model) and the
	// conditions of its Execution that need the model no one configured.
	var conds []string
	if opts.ModelJudge == nil && sp.Execution != nil && sp.Body() != nil {
		conds = modelProblems(sp, sp.Body().Program, nil, opts.ModelHint, diags)
	}
	plan, err := callgraph.PlanContract(sp, env, load, &opts.Bindings)
	if ue := (*bind.UsageError)(nil); errors.As(err, &ue) && len(conds) > 0 {
		return nil, true, &bind.UsageError{Problems: append(append([]bind.Problem(nil), ue.Problems...), bind.Others(conds)...)}
	}
	if err != nil {
		return nil, true, err
	}
	if len(conds) > 0 {
		return nil, true, &bind.UsageError{Problems: bind.Others(conds)}
	}
	if opts.ModelJudge == nil {
		var prog *syntax.Program
		if sp.Execution != nil && sp.Body() != nil {
			prog = sp.Body().Program
		}
		diags = append(diags, modelWarnings(sp, prog, nil)...)
	}
	diags = append(diags, plan.Warnings...)
	p = &Prepared{Path: opts.Path, Spec: sp, Digest: SpecDigest(sp), Bindings: opts.Bindings,
		Instance: &bind.Instance{Spec: sp, Inputs: map[string]delegation.Value{}, Env: env}, Warnings: diags, contract: plan}
	for _, in := range sp.Inputs {
		p.Instance.Inputs[in.Name] = plan.Globals[in.Name]
	}
	if p.Path == "" {
		p.Path = sp.File.Name
	}
	p.Host = p.host(*opts)
	return p, true, nil
}
