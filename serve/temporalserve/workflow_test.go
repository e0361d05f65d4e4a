package temporalserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

type triggered struct {
	ack      Ack
	rejected error
	err      error
}

// trigger sends a trigger update and records how it was answered.
func trigger(env *testsuite.TestWorkflowEnvironment, id, node, event string, into *triggered) {
	in := TriggerIn{Node: node}
	if event != "" {
		v, _ := canon.Decode([]byte(event))
		in.Event, _ = canon.Marshal(v)
		in.FP, _ = canon.Fingerprint(v, nil)
	}
	env.UpdateWorkflow(TriggerUpdate, id, &testsuite.TestUpdateCallback{
		OnReject: func(err error) { into.rejected = err },
		OnComplete: func(v any, err error) {
			into.err = err
			if a, ok := v.(Ack); ok {
				into.ack = a
			}
		},
	}, in)
}

func drainState(t *testing.T, env *testsuite.TestWorkflowEnvironment, id int) DrainState {
	t.Helper()
	v, err := env.QueryWorkflow(DrainQuery, id)
	if err != nil {
		t.Fatal(err)
	}
	var ds DrainState
	if err := v.Get(&ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// The workflow queues triggers by update (a repeated event is a
// duplicate, an event for a node that is no gateway is rejected), drains
// them with the activities, and continues as new with its state when
// Temporal suggests it: the next run still knows the event.
func TestWorkflowQueuesDrainsAndContinues(t *testing.T) {
	a, f, w, st := feedActivities(t)
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := ts.NewTestWorkflowEnvironment()
	Register(env, a)
	var first, dup, wake, bad triggered
	env.RegisterDelayedCallback(func() {
		trigger(env, "u1", "feed", `{"id":"a"}`, &first)
		trigger(env, "u2", "feed", `{"id":"a"}`, &dup)
		trigger(env, "u3", "tally", "", &wake)
		trigger(env, "u4", "tally", `{"id":"b"}`, &bad)
	}, 0)
	var done DrainState
	var late triggered
	env.RegisterDelayedCallback(func() {
		done = drainState(t, env, 1)
		env.SetContinueAsNewSuggested(true)
		var again triggered
		trigger(env, "u5", "feed", `{"id":"c"}`, &again)
		trigger(env, "u6", "tally", `{"id":"d"}`, &late)
	}, time.Minute)
	env.ExecuteWorkflow(WorkflowName, Input{World: w})

	if first.err != nil || first.ack != (Ack{Drain: 1}) {
		t.Errorf("first event: %+v, want drain 1", first)
	}
	if dup.ack != (Ack{Drain: 1, Duplicate: true}) {
		t.Errorf("repeated event: %+v, want drain 1, a duplicate", dup)
	}
	if wake.ack.Drain != 1 || wake.ack.Duplicate {
		t.Errorf("manual wake: %+v, want drain 1", wake)
	}
	// Before the shape is known the handler refuses it, after that the
	// validator.
	if bad.rejected == nil && bad.err == nil || bad.ack.Drain != 0 {
		t.Errorf("an event for the tally was queued: %+v", bad)
	}
	if late.rejected == nil || late.ack.Drain != 0 {
		t.Errorf("an event for the tally, later, was not rejected: %+v", late)
	}
	if done.State != "done" || len(done.Outcome.Triggers) != 3 || done.Outcome.Rendered != 2 {
		t.Fatalf("drain 1: %+v, want done with 3 triggers and 2 renders", done)
	}
	if f.renders["feed"] != 2 || f.renders["tally"] != 2 {
		t.Errorf("renders %v, want feed and tally twice (drains 1 and 2)", f.renders)
	}
	if rs, _ := st.Ledger("feed"); len(rs) != 2 || rs[0].Status != receipt.Rendered {
		t.Errorf("feed's ledger: %d receipts", len(rs))
	}

	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("workflow ended with %v, want to continue as new", err)
	}
	var next Input
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.State == nil || next.State.Next != 3 || len(next.State.Seen["feed"]) != 2 || next.State.Done[2] == nil || len(next.State.Pending) != 0 {
		t.Fatalf("state carried: %+v, want drains 1 and 2 done and both events seen", next.State)
	}

	env2 := ts.NewTestWorkflowEnvironment()
	Register(env2, a)
	var seen triggered
	env2.RegisterDelayedCallback(func() { trigger(env2, "u1", "feed", `{"id":"c"}`, &seen) }, 0)
	env2.RegisterDelayedCallback(env2.CancelWorkflow, time.Minute)
	env2.ExecuteWorkflow(WorkflowName, next)
	if seen.ack != (Ack{Drain: 3, Duplicate: true}) {
		t.Errorf("event after continue-as-new: %+v, want drain 3, a duplicate", seen)
	}
}

// constant renders every node as the same truth.
type constant struct{}

func (constant) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{Truth: map[string]any{"reviewed": true, "items": []any{}}}, nil
}

// Continuity as durable timers: over two simulated days the cron
// gateway of serve's testdata/continuity wakes itself on its minutes and
// the weekly review once, at the start (it had never fired); nothing else
// wakes.
func TestWorkflowWakesOnTimers(t *testing.T) {
	g, diags, err := graph.Load("../testdata/continuity")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Open: func(World) (*Project, error) {
		return &Project{Graph: g, Store: st, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return constant{}, nil }, nil)}, nil
	}}
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := ts.NewTestWorkflowEnvironment()
	Register(env, a)
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	env.SetStartTime(t0)
	wakes := map[string][]string{}
	var pollEvents []string // the drains that gave poll an event
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(OutcomesQuery, 0)
		if err != nil {
			t.Error(err)
			return
		}
		var os []*serve.Outcome
		v.Get(&os)
		for _, o := range os {
			if o.Events["poll"] != "" {
				pollEvents = append(pollEvents, o.Start.Format("Jan 2 15:04"))
			}
			for _, tr := range o.Triggers {
				if tr.Self {
					wakes[tr.Node] = append(wakes[tr.Node], o.Start.Format("Jan 2 15:04"))
				}
			}
		}
		env.CancelWorkflow()
	}, 48*time.Hour-time.Minute)
	env.ExecuteWorkflow(WorkflowName, Input{World: World{Project: "../testdata/continuity", State: st.Dir}})
	want := map[string][]string{
		"poll":   {"Dec 1 09:00", "Dec 1 09:30", "Dec 1 10:00", "Dec 1 10:30", "Dec 2 09:00", "Dec 2 09:30", "Dec 2 10:00", "Dec 2 10:30"},
		"review": {"Dec 1 08:00"},
	}
	if fmt.Sprint(wakes) != fmt.Sprint(want) {
		t.Errorf("self wakes %v, want %v", wakes, want)
	}
	// Each of the gateway's firings gives it an event (its render runs),
	// the responsibility's self wake none.
	if fmt.Sprint(pollEvents) != fmt.Sprint(want["poll"]) {
		t.Errorf("poll given an event at %v, want %v", pollEvents, want["poll"])
	}
	rs, err := st.Ledger("poll")
	if err != nil || len(rs) != len(want["poll"]) {
		t.Fatalf("poll's ledger: %d receipts, %v", len(rs), err)
	}
	for i, r := range rs {
		if r.Status != receipt.Rendered {
			t.Errorf("poll's receipt %d: %s, want rendered", i, r.Status)
		}
	}
}

// A drain that ends in an error before it delivers its events (here its
// Begin refused, as for a damaged store) keeps them held: the next drain
// delivers them with its own, and the event is not lost to a drain that
// never rendered it.
func TestWorkflowHoldsTheEventsOfADrainThatFailed(t *testing.T) {
	a, _, w, st := feedActivities(t)
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := ts.NewTestWorkflowEnvironment()
	Register(env, a)
	begins := 0
	env.RegisterActivityWithOptions(func(ctx context.Context, in DrainIn) (int, error) {
		begins++
		if begins == 1 {
			return 0, tsdk.NewNonRetryableApplicationError("the store is damaged", "test", nil)
		}
		return a.Begin(ctx, in)
	}, activity.RegisterOptions{Name: BeginActivity, DisableAlreadyRegisteredCheck: true})
	var first, second, again triggered
	env.RegisterDelayedCallback(func() { trigger(env, "u1", "feed", `{"id":"a"}`, &first) }, 0)
	var failed DrainState
	env.RegisterDelayedCallback(func() {
		failed = drainState(t, env, 1)
		trigger(env, "u2", "feed", `{"id":"a"}`, &again)
		trigger(env, "u3", "feed", `{"id":"b"}`, &second)
	}, time.Minute)
	var redelivered, next DrainState
	env.RegisterDelayedCallback(func() {
		redelivered, next = drainState(t, env, again.ack.Drain), drainState(t, env, second.ack.Drain)
		env.CancelWorkflow()
	}, 2*time.Minute)
	env.ExecuteWorkflow(WorkflowName, Input{World: w})

	if first.ack.Drain != 1 || failed.State != "done" || failed.Outcome == nil || failed.Outcome.Error == "" {
		t.Fatalf("drain 1: %+v %+v, want it done with Begin's error", first, failed)
	}
	if !again.ack.Duplicate {
		t.Errorf("event a sent again while held: %+v, want a duplicate", again)
	}
	if redelivered.State != "done" || redelivered.Outcome.Error != "" || redelivered.Outcome.Redelivered != 1 {
		t.Fatalf("drain %d (a duplicate of the held event): %+v, want done with event a delivered again", again.ack.Drain, redelivered.Outcome)
	}
	if next.State != "done" || next.Outcome.Error != "" || next.Outcome.Redelivered != 0 {
		t.Fatalf("drain %d (event b): %+v, want done, a delivered before", second.ack.Drain, next.Outcome)
	}
	v, ok, err := st.Published("feed")
	if err != nil || !ok || fmt.Sprint(v.(map[string]any)["seen"]) != "[a b]" {
		t.Errorf("feed's truth: %v %v %v, want [a b]", v, ok, err)
	}
}
