package temporalserve

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// Project is a World opened on a worker: the graph, the shared store,
// and its prepared drain (drain.Prepare: how its nodes render).
type Project struct {
	Graph   *graph.Graph
	Store   *store.Store
	Drain   *drain.Prepared
	SignKey ed25519.PrivateKey
}

// Activities are the steps of serve workflows, run by a worker.
type Activities struct {
	// Open opens a World on this worker (prose worker loads the graph
	// and binds it as prose serve does). Each World is opened once per
	// worker process.
	Open func(World) (*Project, error)

	mu     sync.Mutex
	opened map[string]*Project
}

// Register adds the serve workflow and its activities to a worker.
func Register(r worker.Registry, a *Activities) {
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(a.Shape, activity.RegisterOptions{Name: ShapeActivity})
	r.RegisterActivityWithOptions(a.Begin, activity.RegisterOptions{Name: BeginActivity})
	r.RegisterActivityWithOptions(a.Plan, activity.RegisterOptions{Name: PlanActivity})
	r.RegisterActivityWithOptions(a.Fire, activity.RegisterOptions{Name: FireActivity})
	r.RegisterActivityWithOptions(a.Due, activity.RegisterOptions{Name: DueActivity})
	r.RegisterActivityWithOptions(a.DueBy, activity.RegisterOptions{Name: DueByActivity})
}

func (a *Activities) open(w World) (*Project, error) {
	key := fmt.Sprintf("%q %q %q %d %q", w.Project, w.State, w.Slots, w.MaxParallel, w.SignKey)
	a.mu.Lock()
	defer a.mu.Unlock()
	if p := a.opened[key]; p != nil {
		return p, nil
	}
	if a.Open == nil {
		return nil, tsdk.NewNonRetryableApplicationError("this worker serves no graphs", errWorld, nil)
	}
	p, err := a.Open(w)
	if err == nil && (p.Drain == nil || p.Drain.Graph != p.Graph) {
		err = errors.New("its Project.Drain is not a drain of its Project.Graph")
	}
	if err != nil {
		return nil, tsdk.NewNonRetryableApplicationError(fmt.Sprintf("opening %s on this worker: %v", w.Project, err), errWorld, nil)
	}
	if a.opened == nil {
		a.opened = map[string]*Project{}
	}
	a.opened[key] = p
	return p, nil
}

// Shape reads the graph's levels, kinds and whether any node has a
// cadence.
func (a *Activities) Shape(ctx context.Context, w World) (*Shape, error) {
	p, err := a.open(w)
	if err != nil {
		return nil, err
	}
	defer beat(ctx)()
	sh := &Shape{Kinds: map[string]spec.Kind{}}
	for i, n := range p.Graph.Nodes {
		if i == 0 || p.Graph.Nodes[i-1].Height != n.Height {
			sh.Levels = append(sh.Levels, nil)
		}
		sh.Levels[len(sh.Levels)-1] = append(sh.Levels[len(sh.Levels)-1], n.ID)
		sh.Kinds[n.ID] = n.Kind
		pl, err := cadence.Of(n.Spec)
		if err != nil {
			return nil, tsdk.NewNonRetryableApplicationError(err.Error(), errWorld, nil)
		}
		sh.Cadenced = sh.Cadenced || !pl.Empty()
	}
	return sh, nil
}

// input is what a step of in's drain delivers, and where it commits.
func (p *Project) input(in *DrainIn) (drain.Input, error) {
	_, events, ticks, err := serve.Deliver(p.Graph, in.Drain, in.Entries, in.Held)
	if err != nil {
		return drain.Input{}, err
	}
	return drain.Input{Store: p.Store, Events: events, Ticks: ticks, SignKey: p.SignKey}, nil
}

// Begin fixes the drain's store number. It waits while a local prose
// serve holds the state directory.
func (a *Activities) Begin(ctx context.Context, in DrainIn) (int, error) {
	p, err := a.open(in.World)
	if err != nil {
		return 0, err
	}
	defer beat(ctx)()
	unlock, err := store.Lock(ctx, p.Store.Dir, store.LockOptions{Command: "prose worker", Shared: true})
	if err != nil {
		return 0, err // retried: a local serve or drain has it
	}
	defer unlock()
	o, err := p.input(&in)
	if err != nil {
		return 0, err
	}
	return p.Drain.Number(o)
}

// Plan lists the nodes of in.Nodes (one height) that fire.
func (a *Activities) Plan(ctx context.Context, in DrainIn) (*PlanOut, error) {
	p, err := a.open(in.World)
	if err != nil {
		return nil, err
	}
	defer beat(ctx)()
	o, err := p.input(&in)
	if err != nil {
		return nil, err
	}
	s, err := p.Drain.Resume(o, in.Store)
	if err != nil {
		return nil, err
	}
	fire, render, err := s.Plan(in.Nodes)
	if err != nil {
		return nil, err
	}
	return &PlanOut{Fire: fire, Render: render}, nil
}

// Fire renders and commits in.Node as receipt in.Seq of the drain, under
// the node's lock; a commit of this drain already in the store is
// returned as it is, nothing rendered (Done).
func (a *Activities) Fire(ctx context.Context, in DrainIn) (*FireOut, error) {
	p, err := a.open(in.World)
	if err != nil {
		return nil, err
	}
	stop := beat(ctx)
	defer stop()
	unlockDir, err := store.Lock(ctx, p.Store.Dir, store.LockOptions{Command: "prose worker", Shared: true, Wait: true})
	if err != nil {
		return nil, err
	}
	defer unlockDir()
	unlock, err := lockNode(ctx, p.Store.Dir, in.Node)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := p.input(&in)
	if err != nil {
		return nil, err
	}
	s, err := p.Drain.Resume(o, in.Store)
	if err != nil {
		return nil, err
	}
	r, done, err := s.Fire(ctx, in.Node, in.Seq)
	if err != nil || r == nil {
		return &FireOut{}, err
	}
	return &FireOut{Ref: serve.Ref{Node: r.Node, Status: r.Status, Hash: r.Hash}, Tokens: r.Cost.TokensIn + r.Cost.TokensOut,
		TokensIn: r.Cost.TokensIn, TokensOut: r.Cost.TokensOut, Done: done}, nil
}

// Due is when each node with a cadence is next due.
func (a *Activities) Due(ctx context.Context, in DueIn) (map[string]time.Time, error) {
	p, err := a.open(in.World)
	if err != nil {
		return nil, err
	}
	defer beat(ctx)()
	out := map[string]time.Time{}
	for _, n := range p.Graph.Nodes {
		pl, err := cadence.Of(n.Spec)
		if err != nil || pl.Empty() {
			continue
		}
		if t, ok := serve.Due(p.Store, n.ID, pl, in.Fired[n.ID], in.Self[n.ID], in.Started); ok {
			out[n.ID] = t
		}
	}
	return out, nil
}

// DueAt is when a cadenced node is next due and, for a gateway due by
// its schedule, the event it is then given (serve.ScheduledEvent),
// canonical, with its fingerprint.
type DueAt struct {
	At    time.Time `json:"at"`
	Event []byte    `json:"event,omitempty"`
	FP    string    `json:"fp,omitempty"`
}

// DueBy is Due with the event each gateway due by its schedule is
// given (as serve's WakeDue gives it).
func (a *Activities) DueBy(ctx context.Context, in DueIn) (map[string]DueAt, error) {
	p, err := a.open(in.World)
	if err != nil {
		return nil, err
	}
	defer beat(ctx)()
	out := map[string]DueAt{}
	for _, n := range p.Graph.Nodes {
		pl, err := cadence.Of(n.Spec)
		if err != nil || pl.Empty() {
			continue
		}
		t, by, ok := serve.DueBy(p.Store, n.ID, pl, in.Fired[n.ID], in.Self[n.ID], in.Started)
		if !ok {
			continue
		}
		d := DueAt{At: t}
		if by != nil && n.Kind == spec.KindGateway {
			v, err := canon.Decode(serve.ScheduledEvent(by, t))
			if err != nil {
				return nil, err
			}
			if d.Event, err = canon.Marshal(v); err != nil {
				return nil, err
			}
			if d.FP, err = canon.Fingerprint(v, nil); err != nil {
				return nil, err
			}
		}
		out[n.ID] = d
	}
	return out, nil
}

// beat heartbeats until the returned func is called, so that a lost
// worker is noticed within activityopts.HeartbeatTimeout.
func beat(ctx context.Context) func() {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
