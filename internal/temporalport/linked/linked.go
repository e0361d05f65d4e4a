// Package linked is the Temporal engine behind temporalport.Link: what
// the program prose-temporal links and prose does not.
package linked

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"go.temporal.io/sdk/client"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/temporalport"
	"github.com/proselang/prose/serve/temporalserve"
	"github.com/proselang/prose/temporal"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// Link is the Temporal engine.
type Link struct{}

var _ temporalport.Link = Link{}

func conn(c temporalport.Conn) temporal.Conn {
	return temporal.Conn{Address: c.Address, Namespace: c.Namespace, TaskQueue: c.TaskQueue, Log: c.Log}
}

// ConnFromEnv is temporal.ConnFromEnv.
func (Link) ConnFromEnv(c temporalport.Conn, getenv func(string) string) temporalport.Conn {
	t := temporal.ConnFromEnv(conn(c), getenv)
	return temporalport.Conn{Address: t.Address, Namespace: t.Namespace, TaskQueue: t.TaskQueue, Log: t.Log}
}

// Engine is a temporal.Engine.
func (Link) Engine(c temporalport.Conn, workflowID string, attach bool) temporalport.Engine {
	return &temporal.Engine{Conn: conn(c), WorkflowID: workflowID, Attach: attach}
}

// Dial is temporal.Dial.
func (Link) Dial(ctx context.Context, c temporalport.Conn) (temporalport.Client, error) {
	cl, err := temporal.Dial(ctx, conn(c))
	if err != nil {
		return nil, err
	}
	return linkedClient{cl}, nil
}

// WrongRun is an AlreadyRunningError or an UnknownRunError.
func (Link) WrongRun(err error) bool {
	return errors.As(err, new(*temporal.AlreadyRunningError)) || errors.As(err, new(*temporal.UnknownRunError))
}

// RunFailure is the RunError in err.
func (Link) RunFailure(err error) (string, error) {
	var re *temporal.RunError
	if errors.As(err, &re) {
		return re.Msg, re
	}
	return "", nil
}

// CodecHandler is temporal.NewCodecHandler.
func (Link) CodecHandler(keyFile, token, allowOrigin string) (http.Handler, error) {
	return temporal.NewCodecHandler(temporal.CodecServerOptions{KeyFile: keyFile, Token: token, AllowOrigin: allowOrigin})
}

// Activities are the temporal.Activities of a.
func Activities(a temporalport.Activities) *temporal.Activities {
	return &temporal.Activities{LLM: a.LLM, Render: a.Render, ModelJudgeFor: a.ModelJudgeFor}
}

type linkedClient struct{ cl client.Client }

func (c linkedClient) Close() { c.cl.Close() }

func (c linkedClient) Gates(ctx context.Context, id string) ([]temporalport.Gate, error) {
	gs, err := temporal.Gates(ctx, c.cl, id)
	var out []temporalport.Gate
	for _, g := range gs {
		out = append(out, temporalport.Gate{Gate: g.Gate, Kind: g.Kind, Question: g.Question})
	}
	return out, err
}

func (c linkedClient) Answer(ctx context.Context, id, gate string, value json.RawMessage) (temporalport.Gate, error) {
	g, err := temporal.Answer(ctx, c.cl, id, gate, value)
	return temporalport.Gate{Gate: g.Gate, Kind: g.Kind, Question: g.Question}, err
}

func (c linkedClient) Wait(ctx context.Context, id string) (delegation.Value, error) {
	return temporal.Wait(ctx, c.cl, id)
}

func (c linkedClient) StartServe(ctx context.Context, queue string, w temporalport.World) (string, error) {
	return temporalserve.Start(ctx, c.cl, queue, world(w))
}

func world(w temporalport.World) temporalserve.World {
	return temporalserve.World{Project: w.Project, State: w.State, SignKey: w.SignKey, Slots: w.Slots, MaxParallel: w.MaxParallel}
}

func (c linkedClient) Front(id string, g *graph.Graph, st *store.Store) temporalport.Front {
	return temporalserve.NewFront(c.cl, id, g, st)
}

func (c linkedClient) Worker(cn temporalport.Conn, a temporalport.Activities, o temporalport.WorkerOptions, open func(temporalport.World) (*temporalport.Project, error)) temporalport.Worker {
	w := temporal.NewWorker(c.cl, conn(cn), Activities(a), temporal.WorkerOptions{MaxConcurrentCalls: o.MaxConcurrentCalls, MaxConcurrentRuns: o.MaxConcurrentRuns})
	temporalserve.Register(w, &temporalserve.Activities{Open: Open(open)})
	return w
}

// Open is open as temporalserve.Activities.Open takes it.
func Open(open func(temporalport.World) (*temporalport.Project, error)) func(temporalserve.World) (*temporalserve.Project, error) {
	return func(wd temporalserve.World) (*temporalserve.Project, error) {
		p, err := open(temporalport.World{Project: wd.Project, State: wd.State, SignKey: wd.SignKey, Slots: wd.Slots, MaxParallel: wd.MaxParallel})
		if p == nil {
			return nil, err
		}
		return &temporalserve.Project{Graph: p.Graph, Store: p.Store, Drain: p.Drain, SignKey: p.SignKey}, err
	}
}
