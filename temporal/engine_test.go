package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/spec"
)

// The engine tests run the same spec with the same program services twice,
// on the local engine (runhost.Run) and as a workflow on the SDK's
// in-memory test environment, and require the same result (or the same
// error message) and the same calls, counted by the services themselves.

// svc is the scripted test service of the std tests (see its header).
func svcPath(t testing.TB) string {
	p, err := filepath.Abs(filepath.Join("..", "testdata", "std", "svc.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test service missing: %v", err)
	}
	return p
}

// svcCmd is the command of svc.sh logging to log.
func svcCmd(svc, log string) string { return "LOG=" + shq(log) + " sh " + shq(svc) }

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// binding returns a slot binding of the service command svc (see svcCmd)
// logging as label.
func binding(svc, label string, replies ...string) string {
	parts := []string{"exec:" + svc, shq(label)}
	for _, r := range replies {
		parts = append(parts, shq(r))
	}
	return strings.Join(parts, " ")
}

type engineCase struct {
	name    string
	pattern string
	slots   func(svc string) []string
	config  []string
	inputs  []string
	json    string
	judge   delegation.Judge
}

func patternPath(p string) string {
	if !strings.Contains(p, "/") {
		return "std/patterns/" + p + ".prose.md"
	}
	return p
}

func (c *engineCase) bindings(t testing.TB, svc, log string) bind.Settings {
	svc = svcCmd(svc, log)
	as := func(flag string, list []string) []bind.Assignment {
		out, err := bind.ParseAssignments(flag, list)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return bind.Settings{
		Slots: as("--slot", c.slots(svc)), Config: as("--config", c.config),
		Inputs: as("--input", c.inputs), InputJSON: c.json,
	}
}

// outcome is what a run produced: its result as JSON or its error, and
// the calls its services logged (sorted: parallel calls start in any
// order).
type outcome struct {
	result string
	err    string
	calls  []string
}

func readCalls(t testing.TB, log string) []string {
	data, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	sort.Strings(lines)
	return lines
}

func runLocal(t *testing.T, c *engineCase, svc string) outcome {
	log := filepath.Join(t.TempDir(), "local.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := runhost.Run(ctx, runhost.RunOptions{
		Path:       patternPath(c.pattern),
		Bindings:   c.bindings(t, svc, log),
		Env:        &bind.Env{Nested: callgraph.NestedSpec},
		ModelJudge: c.judge,
	})
	return outcomeOf(t, v, err, log)
}

func outcomeOf(t *testing.T, v delegation.Value, err error, log string) outcome {
	o := outcome{calls: readCalls(t, log)}
	if err != nil {
		o.err = err.Error()
		return o
	}
	data, jerr := delegation.ToJSON(v)
	if jerr != nil {
		t.Fatal(jerr)
	}
	o.result = string(data)
	return o
}

// newTestEnv returns a test workflow environment with the workflow and
// activities registered.
func newTestEnv(t *testing.T, judge delegation.Judge) *testsuite.TestWorkflowEnvironment {
	a := &Activities{}
	if judge != nil {
		a.ModelJudgeFor = func(*spec.Spec) delegation.Judge { return judge }
	}
	return newTestEnvWith(t, a)
}

// newTestEnvWith is newTestEnv with the worker's activities a.
func newTestEnvWith(t *testing.T, a *Activities) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger{})
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterActivityWithOptions(a.Call, activity.RegisterOptions{Name: CallActivityName})
	env.RegisterActivityWithOptions(a.Judge, activity.RegisterOptions{Name: JudgeActivityName})
	env.SetTestTimeout(2 * time.Minute)
	return env
}

func runWorkflow(t *testing.T, c *engineCase, svc string) outcome {
	log := filepath.Join(t.TempDir(), "temporal.log")
	req, err := Resolve(ResolveOptions{Path: patternPath(c.pattern), Bindings: c.bindings(t, svc, log), HaveModel: c.judge != nil})
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	// The request crosses a serialization boundary, as it does to a worker.
	req = roundTrip(t, req)
	env := newTestEnv(t, c.judge)
	env.ExecuteWorkflow(WorkflowName, req)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		return outcomeOf(t, nil, runError(err), log)
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	v, err := delegation.FromJSON(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	return outcomeOf(t, v, nil, log)
}

func roundTrip(t testing.TB, req Request) Request {
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var out Request
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// containsJudge is the model judge of these tests: a criterion "contains X"
// holds when the subject's JSON contains X; a choice picks the first
// label its values' JSON contains.
type containsJudge struct{}

func (containsJudge) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j.IsChoice() {
		data, _ := delegation.ToJSON(j.Values)
		for _, l := range j.Options {
			if strings.Contains(string(data), l) {
				return delegation.Verdict{Pick: l, Asked: true}, nil
			}
		}
		return delegation.Verdict{}, errors.New("no label in the values: " + string(data))
	}
	if j.Cond == nil || j.Cond.Says == nil {
		return delegation.Verdict{}, errors.New("unjudged: " + j.Cond.Text)
	}
	crit, _ := j.Values.Get(j.Cond.Says.Criterion)
	subj, _ := j.Values.Get(j.Cond.Says.Subject)
	c, _ := crit.(string)
	word, found := strings.CutPrefix(c, "contains ")
	if !found {
		return delegation.Verdict{}, errors.New("unjudged: " + j.Cond.Text)
	}
	data, _ := delegation.ToJSON(subj)
	return delegation.Verdict{Holds: strings.Contains(string(data), word), Rule: "test-contains"}, nil
}

// stdCases covers every pattern of the library, plus the call clauses
// (retries with backoff and jitter, timeout, on_fail, try) and nesting.
func stdCases() []engineCase {
	s := func(pairs ...[]string) func(string) []string {
		return func(svc string) []string {
			var out []string
			for _, p := range pairs {
				out = append(out, p[0]+"="+binding(svc, p[1], p[2:]...))
			}
			return out
		}
	}
	b := func(xs ...string) []string { return xs }
	return []engineCase{
		{name: "ratchet", pattern: "ratchet",
			slots: s(b("advancer", "advancer", `"s1"`, `"s2"`, `"s3"`, `"s4"`),
				b("certifier", "certifier", `{"verdict":"certify"}`, `{"verdict":"reject","reason":"too big"}`, `{"verdict":"certify"}`, `{"verdict":"certify"}`)),
			config: []string{"max_steps=4"}, inputs: []string{"task_brief=climb", `certified_progress=["s0"]`}},
		{name: "retry-with-learning", pattern: "retry-with-learning",
			slots:  s(b("target", "target", "fail:boom one", "fail:boom two", `"done"`)),
			config: []string{"max_retries=5"}, inputs: []string{"task_brief=fetch"}},
		{name: "retry-with-learning-exhausted", pattern: "retry-with-learning",
			slots:  s(b("target", "target", "fail:down")),
			config: []string{"max_retries=2"}, inputs: []string{"task_brief=fetch"}},
		{name: "retry-with-learning-judged", pattern: "retry-with-learning",
			slots:  s(b("target", "target", `"EMPTY"`, `"rows"`)),
			config: []string{"failure_criteria=contains EMPTY"}, inputs: []string{"task_brief=fetch"}, judge: containsJudge{}},
		{name: "refine", pattern: "refine",
			slots: s(b("refiner", "refiner", `"v1"`, `"v2"`, `"v3"`, `"v4"`),
				b("evaluator", "evaluator", `{"score":0.3,"suggestions":"more detail"}`, `{"score":0.6,"suggestions":"tighter"}`, `{"score":0.9,"suggestions":null}`)),
			config: []string{"max_rounds=5", "threshold=0.8"}, inputs: []string{"task_brief=write"}},
		{name: "worker-critic", pattern: "worker-critic",
			slots: s(b("worker", "worker", `"draft 1"`, `"draft 2"`),
				b("critic", "critic", `{"verdict":"reject","issues":["vague"]}`, `{"verdict":"accept"}`)),
			inputs: []string{"task_brief=essay", "criteria=good"}},
		{name: "oversight", pattern: "oversight",
			slots: s(b("actor", "actor", `{"outcome":"o1","self_assessment":"great"}`, `"o2"`, `"o3"`),
				b("observer", "observer", `"looks off"`),
				b("arbiter", "arbiter", `{"decision":"adjust","adjusted_brief":"b2"}`, `{"decision":"continue"}`, `{"decision":"abort","reason":"unsafe"}`)),
			config: []string{"max_cycles=5"}, inputs: []string{"task_brief=b1"}},
		{name: "guard", pattern: "guard",
			slots:  s(b("guard", "guard", `{"proceed":true,"reason":"ok"}`), b("target", "target", `"launched"`)),
			inputs: []string{"task_brief=launch now"}},
		{name: "guard-on-fail", pattern: "guard",
			slots:  s(b("guard", "guard", "fail:guard down"), b("target", "target", `"launched"`)),
			inputs: []string{"task_brief=launch now"}},
		{name: "race", pattern: "race",
			slots: s(b("candidates", "c0", "fail:c0 broke"), b("candidates", "c1", `sleep:30:"slow"`),
				b("candidates", "c2", `sleep:1:"quick"`)),
			inputs: []string{"task_brief=solve"}},
		{name: "race-judged", pattern: "race",
			slots:  s(b("candidates", "c0", "sleep:1:fail:no"), b("candidates", "c1", `"BAD answer"`)),
			config: []string{"acceptance_criteria=contains GOOD"}, inputs: []string{"task_brief=solve"}, judge: containsJudge{}},
		{name: "fallback-chain", pattern: "fallback-chain",
			slots: s(b("chain", "f0", "fail:f0 down"), b("chain", "f1", "fail:f1 down"),
				b("chain", "f2", `"from f2"`), b("chain", "f3", `"from f3"`)),
			inputs: []string{"task_brief=answer"}},
		{name: "fan-out", pattern: "fan-out",
			slots: s(b("delegates", "d0", `sleep:1:"zero"`), b("delegates", "d1", `"one"`), b("delegates", "d2", `"two"`)),
			json:  `{"briefs": ["b0", "b1", "b2"]}`},
		{name: "map-reduce", pattern: "map-reduce",
			slots:  s(b("mapper", "mapper", `append:chunk`), b("reducer", "reducer", `"merged"`)),
			inputs: []string{"task_brief=count words"}, json: `{"chunks": ["a", "b", "c", "d"]}`},
		{name: "pipeline", pattern: "pipeline",
			slots:  s(b("stages", "s1", `append:input`), b("stages", "s2", `append:input`), b("stages", "s3", `append:input`)),
			inputs: []string{"task_brief=raw"}},
		{name: "dialectic", pattern: "dialectic",
			slots:  s(b("thesis", "thesis", `"t1"`, `"t2"`, `"t3"`), b("antithesis", "antithesis", `"a1"`, `"a2"`, `"a3"`)),
			config: []string{"rounds=3"}, inputs: []string{"task_brief=is tabs better"}},
		{name: "proposer-adversary", pattern: "proposer-adversary",
			slots:  s(b("proposer", "proposer", `"use a cache"`), b("adversary", "adversary", `"stale reads"`)),
			inputs: []string{"task_brief=speed up"}},
		{name: "ensemble-synthesizer", pattern: "ensemble-synthesizer",
			slots:  s(b("ensemble_member", "member", `"guess"`), b("synthesizer", "synth", `"merged"`)),
			config: []string{"ensemble_size=4"}, inputs: []string{"task_brief=estimate"}},
		{name: "stochastic-probe", pattern: "stochastic-probe",
			slots:  s(b("probe", "probe", `"reading"`), b("analyst", "analyst", `{"class":"deterministic"}`)),
			config: []string{"sample_size=5", "model=m-small"}, inputs: []string{"task_brief=what does it mean", "material=the text"}},
		{name: "blind-review", pattern: "blind-review",
			slots:  s(b("reviewer", "reviewer", `append:material`), b("comparator", "comparator", `{"summary":"clear","divergences":["none"]}`)),
			inputs: []string{"task_brief=explain"},
			json:   `{"tiers": [{"model": "big", "count": 2}, {"model": "small", "count": 1}], "materials": ["m1", "m2"]}`},
		{name: "assumption-miner", pattern: "assumption-miner",
			slots:  s(b("miner", "miner", `["a network"]`), b("comparator", "comparator", `{"universal":["a network"]}`)),
			inputs: []string{"material=the spec"}, json: `{"tiers": [{"model": "big", "count": 1}, {"model": "small", "count": 2}]}`},
		{name: "coherence-probe", pattern: "coherence-probe",
			slots:  s(b("reader", "reader", `append:corpus`), b("sync_analyst", "analyst", `"drift report"`)),
			config: []string{"readers_per_direction=2", "label_a=Code"}, inputs: []string{"corpus_a=CODE-TEXT", "corpus_b=DOC-TEXT"}},
		{name: "contrastive-probe", pattern: "contrastive-probe",
			slots:  s(b("measurement", "measure", `append:label`), b("ranker", "ranker", `{"better":"A","magnitude":"clear"}`)),
			config: []string{"dimension=clarity", `candidate_a={"doc":"AAA"}`, `candidate_b={"doc":"BBB"}`}},
		{name: "choice-fix", pattern: "testdata/choice.prose.md",
			slots:  s(b("worker", "worker", `"broken: fix the parser"`), b("fixer", "fixer", `"parser fixed"`)),
			inputs: []string{"task_brief=build"}, judge: containsJudge{}},
		{name: "choice-ship", pattern: "testdata/choice.prose.md",
			slots:  s(b("worker", "worker", `"ready to ship"`), b("fixer", "fixer", `"unused"`)),
			inputs: []string{"task_brief=build"}, judge: containsJudge{}},
		{name: "clauses", pattern: "testdata/clauses.prose.md",
			slots: s(b("flaky", "flaky", "fail:one", "fail:two", `"third time"`, "fail:again", `"fifth"`),
				b("slow", "slow", `sleep:30:"late"`), b("broken", "broken", "fail:always")),
			inputs: []string{"task_brief=go"}},
		{name: "nested", pattern: "guard",
			slots: func(svc string) []string {
				return []string{"guard=" + binding(svc, "guard", `{"proceed":true}`),
					"target=../testdata/std/wrap.prose.md", "target.inner=" + binding(svc, "inner", `"deep"`)}
			},
			inputs: []string{"task_brief=go"}},
		{name: "nested-failure", pattern: "guard",
			slots: func(svc string) []string {
				return []string{"guard=" + binding(svc, "guard", `{"proceed":true}`),
					"target=../testdata/std/wrap.prose.md", "target.inner=" + binding(svc, "inner", "fail:disk full")}
			},
			inputs: []string{"task_brief=go"}},
	}
}

func TestStdSameAsLocal(t *testing.T) {
	svc := svcPath(t)
	for _, c := range stdCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			local := runLocal(t, &c, svc)
			remote := runWorkflow(t, &c, svc)
			if local.err != remote.err {
				t.Errorf("error:\nlocal    %q\ntemporal %q", local.err, remote.err)
			}
			if local.result != remote.result {
				t.Errorf("result:\nlocal    %s\ntemporal %s", local.result, remote.result)
			}
			if strings.Join(local.calls, "\n") != strings.Join(remote.calls, "\n") {
				t.Errorf("calls:\nlocal:\n%s\ntemporal:\n%s", strings.Join(local.calls, "\n"), strings.Join(remote.calls, "\n"))
			}
			if local.err == "" && local.result == "" {
				t.Error("the local run produced nothing")
			}
		})
	}
}

// Every pattern of the library is in the table.
func TestStdCasesCoverTheLibrary(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "std", "patterns", "*.prose.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no library patterns found: %v", err)
	}
	covered := map[string]bool{}
	for _, c := range stdCases() {
		covered[c.pattern] = true
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".prose.md"); !covered[name] {
			t.Errorf("std pattern %s has no case in stdCases", name)
		}
	}
}
