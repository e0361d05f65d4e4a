package temporalserve

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// Project is a World opened on a worker: the graph, the shared store,
// and its prepared drain (drain.Prepare: how its nodes render).
type Project struct {
	Graph   *graph.Graph
	Store   *store.Store
	Drain   *drain.Prepared
	SignKey ed25519.PrivateKey

	// shape is Graph's (shapeErr why it has none), taken as it opens.
	shape    *Shape
	shapeErr error
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
	r.RegisterActivityWithOptions(a.Reshape, activity.RegisterOptions{Name: ReshapeActivity})
	r.RegisterActivityWithOptions(a.Stale, activity.RegisterOptions{Name: StaleActivity})
}

func (a *Activities) open(w World) (*Project, error) { return a.openAgain(w, false) }

// openAgain is open; with again, the World is opened again even when
// this worker has it open (its files may have changed since).
func (a *Activities) openAgain(w World, again bool) (*Project, error) {
	key := fmt.Sprintf("%q %q %q %d %q", w.Project, w.State, w.Slots, w.MaxParallel, w.SignKey)
	a.mu.Lock()
	defer a.mu.Unlock()
	if p := a.opened[key]; p != nil && !again {
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
	p.shape, p.shapeErr = shapeOf(p.Graph)
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
	if p.shapeErr != nil {
		return nil, tsdk.NewNonRetryableApplicationError(p.shapeErr.Error(), errWorld, nil)
	}
	return p.shape, nil
}

// Reshape is Shape of the project as it is now: opened again when this
// worker's graph is not the one of fingerprint in.Want.
func (a *Activities) Reshape(ctx context.Context, in ReshapeIn) (*Shape, error) {
	p, err := a.open(in.World)
	if err == nil && (p.shapeErr != nil || p.shape.FP != in.Want) {
		p, err = a.openAgain(in.World, true)
	}
	if err != nil {
		return nil, err
	}
	if p.shapeErr != nil {
		return nil, tsdk.NewNonRetryableApplicationError(p.shapeErr.Error(), errWorld, nil)
	}
	return p.shape, nil
}

// Stale is the look of a start (serve's "a source moved while nothing
// ran"): the nodes a drain would render with no trigger, none for a
// state directory never drained.
func (a *Activities) Stale(ctx context.Context, w World) ([]reconcile.Staleness, error) {
	p, err := a.open(w)
	if err != nil {
		return nil, err
	}
	defer beat(ctx)()
	stale, err := p.Drain.Stale(drain.Input{Store: p.Store, SignKey: p.SignKey})
	if err != nil {
		return nil, err
	}
	for _, s := range stale {
		if !s.New {
			return stale, nil
		}
	}
	if nodes, err := p.Store.Nodes(); err != nil || len(nodes) > 0 {
		return stale, err
	}
	return nil, nil
}

// shapeOf is g's shape.
func shapeOf(g *graph.Graph) (*Shape, error) {
	sh := &Shape{Kinds: map[string]spec.Kind{}}
	for i, n := range g.Nodes {
		if i == 0 || g.Nodes[i-1].Height != n.Height {
			sh.Levels = append(sh.Levels, nil)
		}
		sh.Levels[len(sh.Levels)-1] = append(sh.Levels[len(sh.Levels)-1], n.ID)
		sh.Kinds[n.ID] = n.Kind
		pl, err := cadence.Of(n.Spec)
		if err != nil {
			return nil, err
		}
		sh.Cadenced = sh.Cadenced || !pl.Empty()
	}
	sh.FP = Fingerprint(g)
	return sh, nil
}

// Fingerprint is the fingerprint of the graph g as a drain on Temporal
// depends on it: its nodes in order, with their kinds, heights, whether
// each has a cadence and its contract (reconcile.Contract, without the
// binding), and its edges (which producer's part each input is). A
// worker whose graph has another cannot take part in a drain planned on
// it: the plan's levels would not be its heights, or it would render a
// contract the server no longer has. The bindings (--slot, the programs
// they run) are not in it: the server does not know them.
func Fingerprint(g *graph.Graph) string {
	h := sha256.New()
	for _, n := range g.Nodes {
		pl, err := cadence.Of(n.Spec)
		c, cerr := reconcile.Contract(n, "")
		if cerr != nil {
			c = "error: " + cerr.Error()
		}
		fmt.Fprintf(h, "node %q %q %d %t %t %q\n", n.ID, n.Kind, n.Height, err == nil && !pl.Empty(), err != nil, c)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(h, "edge %q %q %q %q\n", e.Subscriber, e.Input, e.Producer, e.Facet)
	}
	return "graph:" + hex.EncodeToString(h.Sum(nil)[:12])
}

// project opens the World of a step of in's drain, refusing when this
// worker's graph is not the one the drain is planned on (the project
// is opened again first: its files may have changed since this worker
// opened it). A drain with no fingerprint (planned before drains had
// one) is not checked.
func (a *Activities) project(in *DrainIn) (*Project, error) {
	p, err := a.open(in.World)
	if err != nil || in.Shape == "" || p.shape != nil && p.shape.FP == in.Shape {
		return p, err
	}
	if p, err = a.openAgain(in.World, true); err != nil || p.shape != nil && p.shape.FP == in.Shape {
		return p, err
	}
	have := "a graph with no shape"
	if p.shape != nil {
		have = p.shape.FP
	} else if p.shapeErr != nil {
		have += " (" + p.shapeErr.Error() + ")"
	}
	return nil, tsdk.NewNonRetryableApplicationError(fmt.Sprintf(
		"%s on this worker is %s, but drain %d is planned on %s, the graph the serve workflow took its shape from: "+
			"the project changed since; restart prose serve --engine temporal on the project as it is now "+
			"(it has the workflow take the shape again), and give every worker the same project files",
		in.World.Project, have, in.Drain, in.Shape), errShape, nil)
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
	p, err := a.project(&in)
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
	p, err := a.project(&in)
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
	p, err := a.project(&in)
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
