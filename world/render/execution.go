package render

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
)

// Execution renders a node by running its ### Execution on the
// interpreter: each input the spec declares is the value its Requires
// item is bound to, each of its own Maintains names it reads
// (spec.PriorNames) the prior truth's member (null on a cold start), and
// the value it returns is the new truth. The functions it calls stay
// calls: Slots bind them as --slot binds a run's callees.
type Execution struct {
	Slots []patterns.Assignment
	// Dir is where relative paths of bindings resolve ("": the current
	// directory).
	Dir string
}

// Render implements reconcile.Renderer.
func (e *Execution) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	sp := req.Node.Spec
	in := map[string]any{}
	for _, i := range sp.Inputs {
		in[i.Name] = req.Inputs[i.Name]
	}
	prior, _ := req.Prior.(map[string]any)
	for _, name := range sp.PriorNames() {
		in[name] = prior[name]
	}
	js, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	res, err := run.Local{}.Run(ctx, run.Request{Spec: req.Node.Path, Dir: e.Dir, Bindings: patterns.Bindings{Slots: e.Slots, InputJSON: string(js)}},
		run.Options{Quiet: true, Stderr: io.Discard})
	ans := &reconcile.Answer{}
	if res != nil {
		t := res.Totals
		ans.Cost = receipt.Cost{Programs: t.Calls, Requests: t.ModelJudgments, TokensIn: int(t.TokensIn), TokensOut: int(t.TokensOut)}
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
