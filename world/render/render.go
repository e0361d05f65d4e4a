// Package render binds a world-model node's render to a service: a
// program (exec:COMMAND) reading {"node","name","inputs","prior",
// "events","diff","absent"} on stdin and printing the new truth ("node"
// is the node's id, "name" its front matter name, "" when it has none), a
// model (Model), or the node's ### Execution on the interpreter
// (Execution). A model render calls the functions its node names as
// tools (functions.go).
//
// An absent input (its producer has never published a truth, see package
// reconcile) is never given a value: a program finds it missing from
// "inputs" and its name in "absent" (a sorted list, empty when every
// input exists); a model is told which inputs are absent and by whose
// silence; an Execution holds delegation.Absent, which fails the render
// where it is read and which `if x is present:` tests.
//
// A render is what `prose run` of its node alone would be: an Execution
// is a run of the node's file (run.Prepare, through Local.Run) on the
// drain's one spec graph, journaled in the state directory and traced
// under the render's span; a model render asks with prose run's model
// settings, output cap and ### Tools. Drain holds what the renders of one
// drain share (drain.go), and every assembly of a drain hands one to each
// Execution and Model it makes.
//
// Main types: Exec, Execution, Model, Drain. Entry point: Parse.
package render

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
)

// Exec renders a node with a program, run by /bin/sh -c COMMAND as
// package runhost runs exec: slots (process group, grace on cancel,
// output cap); $PROSE_SLOT is the node id.
type Exec struct {
	Command string
	Dir     string
}

// Render implements reconcile.Renderer.
func (e *Exec) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	events := req.Events
	if events == nil {
		events = []any{}
	}
	// One object, its members in this order: node, name, inputs,
	// prior, events, diff, absent.
	obj := delegation.NewObject()
	for _, m := range []struct {
		k string
		v any
	}{{"node", req.Node.ID}, {"name", req.Node.Name}, {"inputs", req.Inputs}, {"prior", req.Prior}, {"events", events}, {"diff", req.Diff}, {"absent", AbsentNames(req)}} {
		v, err := delegation.FromGo(m.v)
		if err != nil {
			return nil, fmt.Errorf("render input %s: %v", m.k, err)
		}
		obj.Set(m.k, v)
	}
	// A lone surrogate escape in the truth printed is refused where it
	// arrives, as in an event (canon.DecodeEvent): read, it would be
	// U+FFFD, a truth other than the one the program gave.
	svc := &service.Exec{Name: req.Node.ID, Command: e.Command, Dir: e.Dir, CheckOutput: canon.LoneSurrogate}
	ans := &reconcile.Answer{Cost: receipt.Cost{Programs: 1}}
	v, err := svc.Call(ctx, &delegation.CallRequest{Service: svc, Args: obj, Attempt: 1})
	if err != nil {
		return ans, fmt.Errorf("exec:%s: %v", e.Command, err)
	}
	if callgraph.HasFacets(req.Node.Spec) {
		if v, err = callgraph.Truth(req.Node.Spec, v); err != nil {
			return ans, fmt.Errorf("exec:%s: %v", e.Command, err)
		}
	}
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return ans, err
	}
	truth, err := canon.Decode(raw)
	if err != nil {
		return ans, err
	}
	ans.Truth = truth
	return ans, nil
}

// AbsentNames lists the absent inputs of req, sorted (an empty list when
// none is).
func AbsentNames(req *reconcile.Request) []string {
	out := []string{}
	for k := range req.Absent {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Parse reads a binding: exec:COMMAND.
func Parse(binding string) (reconcile.Renderer, error) {
	if cmd, ok := strings.CutPrefix(binding, "exec:"); ok && strings.TrimSpace(cmd) != "" {
		return &Exec{Command: cmd}, nil
	}
	return nil, fmt.Errorf("binding %q: a node's render takes exec:COMMAND", binding)
}
