package render

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
)

// Execution renders a node by running its ### Execution on the
// interpreter: each input the spec declares is the value its Requires
// item is bound to (an absent input holds delegation.Absent: reading it
// fails the render, naming it and its producer; `if x is present:`
// tests it), each of its own Maintains names it reads
// (spec.PriorNames) the prior truth's member (null on a cold start), and
// the value it returns is the new truth. The functions it calls stay
// calls: Slots bind them as --slot binds a run's callees.
type Execution struct {
	Slots []bind.Assignment
	// Dir is where relative paths of bindings resolve ("": the current
	// directory).
	Dir string
	// Drain is what the renders of the drain share (nil: prose run's
	// defaults, the files read anew, no journal).
	Drain *Drain
}

// worldRead serves read_world_model("NODE") in an Execution: "self" (or
// the node's own id, name or world-model name) is the prior truth, null on
// a cold start; another node is the truth its read edge carries (package
// graph draws an edge for each such read, so the memo key covers it).
func worldRead(req *reconcile.Request) func(context.Context, map[string]any) (any, error) {
	return func(_ context.Context, args map[string]any) (any, error) {
		name, _ := args["node"].(string)
		if req.Node.ReadsSelf(name) {
			return req.Prior, nil
		}
		if v, ok := req.Inputs[graph.ReadInput(name)]; ok {
			return v, nil
		}
		if by, ok := req.Absent[graph.ReadInput(name)]; ok {
			return nil, fmt.Errorf("%s(%q): %s has not published a truth yet, so this render cannot read it (it runs again when it publishes)", syntax.WorldRead, name, by)
		}
		return nil, fmt.Errorf("%s(%q): %s does not read that node (write its id, or \"self\")", syntax.WorldRead, name, req.Node.ID)
	}
}

// readsWorld reports whether ex calls read_world_model (only then is it
// bound: a binding nothing calls is a warning of the run, and of its
// replay).
func readsWorld(ex *spec.Delegation) bool {
	if ex == nil || ex.Program == nil {
		return false
	}
	found := false
	syntax.Walk(ex.Program, func(x syntax.Node) bool {
		if c, ok := x.(*syntax.CallExpr); ok {
			if id, ok := c.Target.(*syntax.Ident); ok && id.Name == syntax.WorldRead {
				found = true
			}
		}
		return !found
	})
	return found
}

// Render implements reconcile.Renderer.
func (e *Execution) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	sp := req.Node.Spec
	in := map[string]any{}
	prior := map[string]bool{}
	for _, it := range req.Node.Items {
		prior[it.Name] = it.Prior
	}
	var absent []bind.Assignment
	for _, i := range sp.Inputs {
		// The drain gives the value under the item's name, which a
		// sentence may name otherwise than the spec does (graph.ItemOf).
		key := i.Name
		if it := req.Node.ItemOf(i); it != nil && it.Name != "" {
			key = it.Name
		}
		switch by, isAbsent := req.Absent[key]; {
		case prior[key]:
			// A Requires item that names the node's own truth ("prior
			// `CountTrend`") is the prior truth.
			in[i.Name] = req.Prior
		case isAbsent:
			absent = append(absent, bind.Assignment{Name: i.Name, Value: by})
		default:
			in[i.Name] = req.Inputs[key]
		}
	}
	own, _ := req.Prior.(map[string]any)
	for _, name := range sp.PriorNames() {
		in[name] = own[name]
	}
	js, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	rq := e.Drain.request(req.Node.Path, e.Dir)
	rq.Bindings = bind.Settings{Slots: e.Slots, InputJSON: string(js), Absent: absent}
	if readsWorld(sp.Execution) {
		rq.Slots = []run.Slot{{Name: syntax.WorldRead, Binding: run.Func{Name: syntax.WorldRead, Fn: worldRead(req)}}}
	}
	o, err := e.Drain.options(req.Node.ID, req.Drain)
	if err != nil {
		return nil, fmt.Errorf("its Execution's journal: %v", err)
	}
	o.ContractCheck = lint.Contract
	ans := &reconcile.Answer{}
	res, err := run.Local{}.Run(ctx, rq, o)
	if res != nil {
		t := res.Totals
		ans.Cost = receipt.Cost{Programs: t.Calls, Requests: t.ModelJudgments, TokensIn: int(t.TokensIn), TokensOut: int(t.TokensOut)}
		ans.Run = res.RunID
	}
	if err != nil {
		return ans, fmt.Errorf("its Execution: %v", err)
	}
	raw, err := delegation.ToJSON(res.Value)
	if err != nil {
		return ans, err
	}
	if ans.Truth, err = canon.Decode(raw); err != nil {
		return ans, err
	}
	return ans, nil
}
