package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/delegation"
	gatepkg "github.com/proselang/prose/gate"
)

// Gates on Temporal. A gate (ask_user, gate) waits inside the workflow
// for an answer sent as the signal SignalAnswer ({gate, value}); the
// query QueryGates lists the gates waiting, with their questions. A gate
// with a timeout waits at most that long (a workflow timer, so the
// cluster keeps the time), then takes its `on_fail use` value. An answer
// to a gate that is not waiting yet is kept, and answers the gate when
// the run reaches it. prose answer --engine temporal sends the signal
// (Answer).

// Names of the gate signal and query.
const (
	SignalAnswer = "prose.answer"
	QueryGates   = "prose.gates"
)

// AnswerSignal is the payload of SignalAnswer: the gate's path key
// ("L12", "L12/2") and the answer's JSON.
type AnswerSignal struct {
	Gate  string          `json:"gate"`
	Value json.RawMessage `json:"value"`
}

// WaitingGate is a gate the workflow waits at, as QueryGates lists it.
type WaitingGate struct {
	Gate     string          `json:"gate"`
	Kind     string          `json:"kind"`
	Question json.RawMessage `json:"question"`
	Deadline time.Time       `json:"deadline,omitzero"`
}

// workflowGates is the delegation.Gater of one workflow execution.
type workflowGates struct {
	answers map[string]json.RawMessage
	waiting map[string]WaitingGate
}

// startGates receives the answers of the run's gates and answers
// QueryGates.
func startGates(w workflow.Context) (*workflowGates, error) {
	g := &workflowGates{answers: map[string]json.RawMessage{}, waiting: map[string]WaitingGate{}}
	ch := workflow.GetSignalChannel(w, SignalAnswer)
	workflow.Go(w, func(ctx workflow.Context) {
		for {
			var a AnswerSignal
			if more := ch.Receive(ctx, &a); !more {
				return
			}
			g.answers[a.Gate] = a.Value
		}
	})
	err := workflow.SetQueryHandler(w, QueryGates, func() ([]WaitingGate, error) {
		out := make([]WaitingGate, 0, len(g.waiting))
		for _, wg := range g.waiting {
			out = append(out, wg)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Gate < out[j].Gate })
		return out, nil
	})
	return g, err
}

// Gate implements delegation.Gater: it waits for the gate's signal.
func (g *workflowGates) Gate(ctx context.Context, req *delegation.CallRequest, gt *delegation.Gate) (delegation.Value, error) {
	c, err := fromContext(ctx)
	if err != nil {
		return nil, err
	}
	key := req.Path.Key()
	q, err := delegation.ToJSON(gt.Question)
	if err != nil {
		return nil, err
	}
	wg := WaitingGate{Gate: key, Kind: gt.Kind, Question: q}
	if gt.Timeout > 0 {
		wg.Deadline = workflow.Now(c.w).Add(gt.Timeout).UTC()
	}
	g.waiting[key] = wg
	defer delete(g.waiting, key)
	answered := func() bool { _, ok := g.answers[key]; return ok }
	if gt.Timeout > 0 {
		ok, err := workflow.AwaitWithTimeout(c.w, gt.Timeout, answered)
		if err != nil {
			return nil, context.Canceled
		}
		if !ok {
			return nil, delegation.ErrGateTimeout
		}
	} else if err := workflow.Await(c.w, answered); err != nil {
		return nil, context.Canceled
	}
	v, err := delegation.FromJSON(g.answers[key])
	if err != nil {
		return nil, fmt.Errorf("%s %s: the answer is not JSON: %v", gt.Kind, key, err)
	}
	return v, nil
}

// Gates lists the gates the run with workflow id waits at.
func Gates(ctx context.Context, cl client.Client, id string) ([]WaitingGate, error) {
	resp, err := cl.QueryWorkflow(ctx, id, "", QueryGates)
	if err != nil {
		return nil, fmt.Errorf("asking run %s for its gates: %v", id, err)
	}
	var out []WaitingGate
	if err := resp.Get(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// Answer sends value (JSON) as the answer to the gate of the run with
// workflow id: gate is its path key, or "" when the run waits at one gate
// only. It returns the gate answered.
func Answer(ctx context.Context, cl client.Client, id, gate string, value json.RawMessage) (WaitingGate, error) {
	gates, err := Gates(ctx, cl, id)
	if err != nil {
		return WaitingGate{}, err
	}
	var keys []string
	var g *WaitingGate
	for i := range gates {
		keys = append(keys, gates[i].Gate)
		if gates[i].Gate == gate || gate == "" && len(gates) == 1 {
			g = &gates[i]
		}
	}
	switch {
	case g == nil && len(gates) == 0:
		return WaitingGate{}, fmt.Errorf("run %s waits at no gate now", id)
	case g == nil && gate == "":
		return WaitingGate{}, fmt.Errorf("run %s waits at %d gates (%s): name the one you answer", id, len(gates), strings.Join(keys, ", "))
	case g == nil:
		return WaitingGate{}, fmt.Errorf("run %s has no gate %s waiting; it waits at %s", id, gate, strings.Join(keys, ", "))
	}
	if g.Kind == "ask_user" {
		var s string
		if json.Unmarshal(value, &s) != nil {
			return WaitingGate{}, fmt.Errorf("ask_user %s of run %s asks for a string, not %s: give it as text (--value TEXT)", g.Gate, id, value)
		}
	}
	// checked and shaped as every answer is (package gate's Shape)
	q, err := delegation.FromJSON(g.Question)
	if err != nil {
		return WaitingGate{}, fmt.Errorf("the question of %s %s of run %s cannot be read: %v", g.Kind, g.Gate, id, err)
	}
	if value, err = gatepkg.Shape(g.Kind, q, value); err != nil {
		return WaitingGate{}, err
	}
	if err := cl.SignalWorkflow(ctx, id, "", SignalAnswer, AnswerSignal{Gate: g.Gate, Value: value}); err != nil {
		return WaitingGate{}, fmt.Errorf("answering run %s: %v", id, err)
	}
	return *g, nil
}
