package temporalserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// The files of the project the shape tests edit: the feed of
// testdata/feed, its tally, and a report that first counts the feed's
// ids itself (height 1, beside the tally), then reads the tally's count
// (height 2, after it), while an audit node is added.
const (
	feedFile = `---
name: feed
kind: gateway
---

# Feed

### Continuity

external-driven

### Maintains

- ` + "`seen`" + `: the ids of every event received
`
	tallyFile = `---
name: tally
kind: responsibility
---

# Tally

### Requires

- ` + "`seen`" + `: from feed

### Maintains

- ` + "`count`" + `: the number of ids seen
`
	reportBefore = `---
name: report
kind: responsibility
---

# Report

### Requires

- ` + "`seen`" + `: from feed

### Maintains

- ` + "`n`" + `: how many ids there are
`
	reportAfter = `---
name: report
kind: responsibility
---

# Report

### Requires

- ` + "`count`" + `: from tally

### Maintains

- ` + "`n`" + `: how many ids there are
`
	auditFile = `---
name: audit
kind: responsibility
---

# Audit

### Requires

- ` + "`seen`" + `: from feed

### Maintains

- ` + "`ok`" + `: whether the feed saw anything
`
)

// writeProject writes files (name: text) into dir, removing the .prose.md
// files not among them.
func writeProject(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(dir, "*.prose.md"))
	for _, f := range old {
		if _, ok := files[filepath.Base(f)]; !ok {
			os.Remove(f)
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func loadProject(t *testing.T, dir string) *graph.Graph {
	t.Helper()
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatalf("load %s: %v %s", dir, err, diags)
	}
	return g
}

// counting renders the shape tests' project: the feed folds its events'
// ids, the tally and the report count them (the report from the tally's
// count when it reads it), the audit says whether there are any. Each
// render is recorded with the values it gave, in order.
type counting struct {
	mu      sync.Mutex
	renders []string
	n       map[string]int
}

func (c *counting) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.renders = append(c.renders, req.Node.ID)
	count := func(v any) int { s, _ := v.([]any); return len(s) }
	switch req.Node.ID {
	case "feed":
		return foldSeen(req), nil
	case "tally":
		c.n["tally"] = count(req.Inputs["seen"])
		return &reconcile.Answer{Truth: map[string]any{"count": c.n["tally"]}}, nil
	case "report":
		if v, ok := req.Inputs["count"]; ok {
			c.n["report"], _ = strconv.Atoi(fmt.Sprint(v))
		} else {
			c.n["report"] = count(req.Inputs["seen"])
		}
		return &reconcile.Answer{Truth: map[string]any{"n": c.n["report"]}}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"ok": count(req.Inputs["seen"]) > 0}}, nil
}

// projectActivities are the activities of a worker over the project in
// dir as it is when the worker opens it, and a store.
func projectActivities(dir string, st *store.Store, c *counting) *Activities {
	return &Activities{Open: func(World) (*Project, error) {
		g, diags, err := graph.Load(dir)
		if err != nil {
			return nil, err
		}
		if diags.HasErrors() {
			return nil, errors.New(diags.String())
		}
		return &Project{Graph: g, Store: st, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return c, nil }, nil)}, nil
	}}
}

func quietSuite() *testsuite.WorkflowTestSuite {
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return &ts
}

func outcomes(t *testing.T, env *testsuite.TestWorkflowEnvironment) []*serve.Outcome {
	t.Helper()
	v, err := env.QueryWorkflow(OutcomesQuery, 0)
	if err != nil {
		t.Fatal(err)
	}
	var os []*serve.Outcome
	if err := v.Get(&os); err != nil {
		t.Fatal(err)
	}
	return os
}

func shapeUpdate(env *testsuite.TestWorkflowEnvironment, id, fp string, ack *ShapeAck, into *error) {
	env.UpdateWorkflow(ShapeUpdate, id, &testsuite.TestUpdateCallback{
		OnReject: func(err error) { *into = err },
		OnComplete: func(v any, err error) {
			*into = err
			if a, ok := v.(ShapeAck); ok {
				*ack = a
			}
		},
	}, ShapeIn{FP: fp})
}

// A project edited while the serve workflow runs (the report now reads
// the tally, so it moves a height up; an audit node is added), then
// given to it as prose serve starts again: the workflow takes the new
// shape, the added node renders, and in the drain of the next event the
// report renders after the tally and holds its count. With the shape it
// started with, the report fired beside the tally and kept the count
// before the event, and the audit never rendered.
func TestWorkflowTakesAnEditedShape(t *testing.T) {
	dir := t.TempDir()
	writeProject(t, dir, map[string]string{"feed.prose.md": feedFile, "tally.prose.md": tallyFile, "report.prose.md": reportBefore})
	before := Fingerprint(loadProject(t, dir))
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &counting{n: map[string]int{}}
	a := projectActivities(dir, st, c)
	env := quietSuite().NewTestWorkflowEnvironment()
	Register(env, a)
	var first, second triggered
	var ack ShapeAck
	var ackErr error
	var after string
	var rendersBefore int
	env.RegisterDelayedCallback(func() { trigger(env, "u1", "feed", `{"id":"a"}`, &first) }, 0)
	env.RegisterDelayedCallback(func() {
		c.mu.Lock()
		rendersBefore = len(c.renders)
		c.mu.Unlock()
		writeProject(t, dir, map[string]string{"feed.prose.md": feedFile, "tally.prose.md": tallyFile, "report.prose.md": reportAfter, "audit.prose.md": auditFile})
		after = Fingerprint(loadProject(t, dir))
		shapeUpdate(env, "s1", after, &ack, &ackErr)
		trigger(env, "u2", "feed", `{"id":"b"}`, &second)
	}, time.Minute)
	var os []*serve.Outcome
	env.RegisterDelayedCallback(func() {
		os = outcomes(t, env)
		env.CancelWorkflow()
	}, 2*time.Minute)
	env.ExecuteWorkflow(WorkflowName, Input{World: World{Project: dir, State: st.Dir}})

	if before == after {
		t.Fatalf("the edit left the fingerprint %s", before)
	}
	if ackErr != nil || !ack.Retake || ack.Was != before {
		t.Fatalf("shape update: %+v, %v; want the shape %s taken again", ack, ackErr, before)
	}
	if first.err != nil || second.err != nil || second.rejected != nil {
		t.Fatalf("triggers: %+v %+v", first, second)
	}
	for _, o := range os {
		if o.Error != "" {
			t.Errorf("drain %d: %s", o.Drain, o.Error)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	later := c.renders[rendersBefore:]
	pos := map[string]int{}
	for i, id := range later {
		pos[id] = i
	}
	if _, ok := pos["audit"]; !ok {
		t.Errorf("the added audit never rendered (renders after the edit: %v)", later)
	}
	if pt, ok := pos["tally"]; !ok || pos["report"] < pt {
		t.Errorf("renders after the edit %v: want the report after the tally it now reads", later)
	}
	if c.n["tally"] != 2 || c.n["report"] != 2 {
		t.Errorf("tally %d, report %d: want both to count the 2 ids", c.n["tally"], c.n["report"])
	}
	last, err := st.CheckedLast("report")
	if err != nil || last == nil {
		t.Fatalf("report's last receipt: %v", err)
	}
}

// A worker whose project is not the one the workflow took its shape from
// refuses every step of a drain (no retry), naming both graphs and the
// fix, and nothing is committed.
func TestWorkerWithAnotherGraphRefuses(t *testing.T) {
	dir := t.TempDir()
	writeProject(t, dir, map[string]string{"feed.prose.md": feedFile, "tally.prose.md": tallyFile, "report.prose.md": reportBefore})
	old, err := shapeOf(loadProject(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	writeProject(t, dir, map[string]string{"feed.prose.md": feedFile, "tally.prose.md": tallyFile, "report.prose.md": reportAfter})
	now := Fingerprint(loadProject(t, dir))
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &counting{n: map[string]int{}}
	a := projectActivities(dir, st, c)
	w := World{Project: dir, State: st.Dir}

	// The steps, called as a worker runs them.
	in := DrainIn{World: w, Drain: 1, Entries: []serve.Entry{eventEntry(t, 1, `{"id":"a"}`)}, Shape: old.FP, Store: 1, Nodes: []string{"feed"}, Node: "feed", Seq: 1}
	_, errBegin := a.Begin(context.Background(), in)
	_, errPlan := a.Plan(context.Background(), in)
	_, errFire := a.Fire(context.Background(), in)
	for name, err := range map[string]error{"Begin": errBegin, "Plan": errPlan, "Fire": errFire} {
		var app *tsdk.ApplicationError
		if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != errShape {
			t.Errorf("%s: %v, want a shape error no retry fixes", name, err)
			continue
		}
		for _, want := range []string{old.FP, now, "restart prose serve --engine temporal"} {
			if !strings.Contains(app.Message(), want) {
				t.Errorf("%s: %q does not say %q", name, app.Message(), want)
			}
		}
	}

	// A workflow that carried the old shape (as across Continue-As-New).
	env := quietSuite().NewTestWorkflowEnvironment()
	Register(env, a)
	var tr triggered
	var os []*serve.Outcome
	env.RegisterDelayedCallback(func() { trigger(env, "u1", "feed", `{"id":"a"}`, &tr) }, 0)
	env.RegisterDelayedCallback(func() {
		os = outcomes(t, env)
		env.CancelWorkflow()
	}, time.Minute)
	env.ExecuteWorkflow(WorkflowName, Input{World: w, State: &State{Next: 1, Shape: old}})
	if tr.err != nil || tr.ack.Drain != 1 {
		t.Fatalf("trigger: %+v", tr)
	}
	if len(os) != 1 || !strings.Contains(os[0].Error, now) || !strings.Contains(os[0].Error, old.FP) || len(os[0].Receipts) != 0 {
		t.Fatalf("outcomes %+v: want drain 1 refused, naming both graphs, with no receipt", os)
	}
	if len(c.renders) != 0 {
		t.Errorf("rendered %v under a shape that is not the worker's", c.renders)
	}
	if nodes, err := st.Nodes(); err != nil || len(nodes) != 0 {
		t.Errorf("the store holds %v (%v), want nothing committed", nodes, err)
	}
}

// As a local serve, a serve on Temporal that starts looks for sources
// that moved while nothing ran: a contract edited after the last drain
// queues a drain that renders its node, with no trigger; a state
// directory never drained queues nothing.
func TestWorkflowLooksForStaleNodesAtStart(t *testing.T) {
	dir := t.TempDir()
	writeProject(t, dir, map[string]string{"feed.prose.md": feedFile, "tally.prose.md": tallyFile})
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := World{Project: dir, State: st.Dir}
	// start runs a fresh serve workflow (a new worker) that is given
	// the project's graph and then, when trig, an event; it returns the
	// drains' outcomes and the renders.
	start := func(trig bool) ([]*serve.Outcome, []string) {
		c := &counting{n: map[string]int{}}
		env := quietSuite().NewTestWorkflowEnvironment()
		Register(env, projectActivities(dir, st, c))
		var ack ShapeAck
		var ackErr error
		var tr triggered
		env.RegisterDelayedCallback(func() {
			shapeUpdate(env, "s1", Fingerprint(loadProject(t, dir)), &ack, &ackErr)
			if trig {
				trigger(env, "u1", "feed", `{"id":"a"}`, &tr)
			}
		}, 0)
		var os []*serve.Outcome
		env.RegisterDelayedCallback(func() {
			os = outcomes(t, env)
			env.CancelWorkflow()
		}, time.Minute)
		env.ExecuteWorkflow(WorkflowName, Input{World: w})
		if ackErr != nil || ack.Retake {
			t.Fatalf("shape update: %+v %v, want the shape kept", ack, ackErr)
		}
		return os, c.renders
	}
	if os, rs := start(false); len(os) != 0 || len(rs) != 0 {
		t.Fatalf("a state directory never drained: drains %+v, renders %v; want none", os, rs)
	}
	if os, _ := start(true); len(os) != 1 || os[0].Rendered != 2 {
		t.Fatalf("the first drain: %+v", os)
	}
	if os, rs := start(false); len(os) != 0 || len(rs) != 0 {
		t.Fatalf("nothing moved: drains %+v, renders %v; want none", os, rs)
	}
	writeProject(t, dir, map[string]string{"feed.prose.md": feedFile, "tally.prose.md": strings.Replace(tallyFile, "the number of ids seen", "how many ids were seen", 1)})
	os, rs := start(false)
	if len(os) != 1 || !os[0].Edited || os[0].Error != "" || strings.Join(rs, " ") != "tally" {
		t.Fatalf("tally's contract edited: drains %+v, renders %v; want one edit drain rendering the tally", os, rs)
	}
}
