package temporal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/spec"
)

// The workflow assembles its run with run.Prepare, as prose run and prose
// test do: the counts of a run's work (Result.Totals) are kept by that
// assembly alone, so a workflow that assembled its run any other way
// would return none. Each case runs on the local engine (run.Local) and as
// a workflow, and both must count the same attempts, failures,
// cancellations and judgments.
func TestWorkflowCountsAsTheLocalRun(t *testing.T) {
	svc := svcPath(t)
	cases := map[string]bool{"ratchet": true, "retry-with-learning": true, "clauses": true, "nested": true, "worker-critic": true, "stochastic-probe": true}
	seen := 0
	for _, c := range stdCases() {
		if !cases[c.name] {
			continue
		}
		seen++
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			local := runShared(t, &c, svc)
			remote, totals := runWorkflowTotals(t, &c, svc)
			if local.Totals.Calls == 0 {
				t.Fatalf("the local run counted no call: %+v", local.Totals)
			}
			if totals == nil {
				t.Fatal("the workflow's result counts nothing: it did not run through run.Prepare")
			}
			if *totals != local.Totals {
				t.Errorf("totals:\nlocal    %+v\ntemporal %+v", local.Totals, *totals)
			}
			lv, _ := delegation.ToJSON(local.Value)
			if string(lv) != remote {
				t.Errorf("result:\nlocal    %s\ntemporal %s", lv, remote)
			}
		})
	}
	if seen != len(cases) {
		t.Fatalf("%d of the %d cases are in stdCases", seen, len(cases))
	}
}

// runShared runs c on the local engine: run.Prepare, Start, Wait.
func runShared(t *testing.T, c *engineCase, svc string) *run.Result {
	log := filepath.Join(t.TempDir(), "local.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := run.Options{Getenv: func(string) string { return "" }}
	if c.judge != nil {
		o.Models = &run.ModelHooks{JudgeFor: func(*spec.Spec) delegation.Judge { return c.judge }}
	}
	res, err := run.Local{}.Run(ctx, run.Request{Spec: patternPath(c.pattern), Bindings: c.bindings(t, svc, log)}, o)
	if err != nil {
		t.Fatalf("local run: %v", err)
	}
	return res
}

// runWorkflowTotals runs c as a workflow and returns its value as JSON
// and its totals.
func runWorkflowTotals(t *testing.T, c *engineCase, svc string) (string, *runhost.Totals) {
	log := filepath.Join(t.TempDir(), "temporal.log")
	req, err := Resolve(ResolveOptions{Path: patternPath(c.pattern), Bindings: c.bindings(t, svc, log), HaveModel: c.judge != nil})
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	env := newTestEnv(t, c.judge)
	env.ExecuteWorkflow(WorkflowName, roundTrip(t, req))
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return string(res.Value), res.Totals
}

// On a real server, the Engine's Result counts the run's work as the
// local engine's does.
func TestE2EEngineCountsAsTheLocalRun(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})
	svc := svcPath(t)
	for _, c := range stdCases() {
		if c.name != "clauses" {
			continue
		}
		local := runShared(t, &c, svc)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		log := filepath.Join(t.TempDir(), "temporal.log")
		res, err := (&Engine{Conn: conn, Client: cl}).Run(ctx, run.Request{Spec: patternPath(c.pattern), Bindings: c.bindings(t, svc, log)}, run.Options{Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Totals != local.Totals || res.Totals.Failed == 0 {
			t.Errorf("totals:\nlocal    %+v\ntemporal %+v", local.Totals, res.Totals)
		}
		return
	}
	t.Fatal("no clauses case in stdCases")
}

// The request's limits bound a workflow as they bound a local run: one
// Limits type, the same defaults, the same error where the budget ends.
func TestWorkflowKeepsTheLimits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "loop.prose.md")
	src := "---\nname: loop\nkind: pattern\n---\n\n# Loop\n\nCounts, then asks.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nlet n = 0\nrepeat 100:\n  n = n + 1\nlet r = call worker\n  n: n\nreturn r\n```\n"
	slots := bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "exec:echo 100"}}}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limits run.Limits
		want   run.Code
	}{{run.Limits{MaxSteps: 50}, run.CodeStepBudget}, {run.Limits{}, 0}} {
		res, lerr := run.Local{}.Run(context.Background(), run.Request{Spec: path, Bindings: slots, Limits: c.limits}, run.Options{Getenv: func(string) string { return "" }})
		if run.CodeOf(lerr) != c.want {
			t.Fatalf("local run with %+v: %v", c.limits, lerr)
		}
		req, err := Resolve(ResolveOptions{Path: path, Bindings: slots, Limits: c.limits})
		if err != nil {
			t.Fatal(err)
		}
		env := newTestEnv(t, nil)
		env.ExecuteWorkflow(WorkflowName, roundTrip(t, req))
		werr := env.GetWorkflowError()
		if c.want == 0 {
			var out Result
			if werr != nil || env.GetWorkflowResult(&out) != nil || string(out.Value) != "100" || res.Value != int64(100) {
				t.Errorf("without limits: local %v, temporal %s %v", res.Value, out.Value, werr)
			}
			continue
		}
		terr := runError(werr)
		var re *RunError
		if !errors.As(terr, &re) || re.Kind != delegation.KindLimit || re.Msg != lerr.Error() || run.CodeOf(terr) != c.want || terr.Error() != lerr.Error() {
			t.Errorf("with %+v:\nlocal    %v\ntemporal %v", c.limits, lerr, werr)
		}
	}
}
