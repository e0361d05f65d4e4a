package ui

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
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Specs the tests run: one that returns, one whose call fails, one that
// waits at a gate, one whose calls run side by side.
const (
	okSpec = "---\nname: fine\nkind: pattern\n---\n\n# Fine\n\nCalls the worker once.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let done = call worker\n  step: \"one\"\nreturn done\n```\n"
	failSpec = "---\nname: broken\nkind: pattern\n---\n\n# Broken\n\nIts worker fails.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let done = call worker\n  step: \"boom\"\nreturn done\n```\n"
	gateSpec = "---\nname: release\nkind: pattern\n---\n\n# Release\n\nAsks which release, then ships it.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let release = ask_user \"Which release?\"\n" +
		"let verdict = gate { summary: release, options: [\"ship\", \"hold\"] }\n  timeout 2h\n  on_fail use { choice: \"hold\" }\n" +
		"let shipped = call worker\n  step: release\n  choice: verdict.choice\n" +
		"return shipped\n```\n"
	fieldsSpec = "---\nname: review\nkind: pattern\n---\n\n# Review\n\nAsks for a review's fields.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let r = gate { summary: \"v2\", options: [\"ship\", \"hold\"], fields: { approved: \"boolean\", count: \"integer\", notes: \"string\" } }\n" +
		"return r\n```\n"
	flakySpec = "---\nname: flaky\nkind: pattern\n---\n\n# Flaky\n\nIts worker fails once, then gives up on a second call.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let a = call worker\n  step: \"flaky\"\n  retries 2\n  backoff {initial: 1ms, max: 1ms, multiplier: 1}\n" +
		"let b = call worker\n  step: \"boom\"\n  on_fail use \"fallback\"\n" +
		"return { a, b }\n```\n"
	secretSpec = "---\nname: leaky\nkind: pattern\n---\n\n# Leaky\n\nIts worker is given a password.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let done = call worker\n  step: \"pw-0f3a9c1e77b2d4\"\nreturn done\n```\n"
	judgedSpec = "---\nname: judged\nkind: pattern\n---\n\n# Judged\n\nShips when the worker's answer says so.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let d = call worker\n  step: \"one\"\nif d says ship:\n  return \"shipped\"\nreturn \"held\"\n```\n"
	choiceSpec = "---\nname: chosen\nkind: pattern\n---\n\n# Chosen\n\nShips or holds as the model picks.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let d = call worker\n  step: \"one\"\nchoice how to go on after d:\n  option \"ship\":\n    return \"shipped\"\n  option \"hold\":\n    return \"held\"\n```\n"
	parallelSpec = "---\nname: fan\nkind: pattern\n---\n\n# Fan\n\nTwo workers at once.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" +
		"let rs = parallel for n in [\"a\", \"b\"]:\n  call worker\n    step: n\nreturn rs\n```\n"
)

// runs is a run directory with journaled runs of the specs above.
type runs struct {
	dir, runDir string
	opts        run.Options
	ids         map[string]string // by spec name: fine, broken, release, fan
}

// worker answers its step; "boom" fails; in a parallel loop each branch
// waits for the other to start, so that they overlap.
func worker() service.Service {
	started := make(chan struct{}, 2)
	return &service.Func{Name: "worker", Fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		step, _ := req.Args.Get("step")
		switch s := delegation.Text(step); s {
		case "boom":
			return nil, errors.New("the worker broke")
		case "flaky":
			if req.Attempt < 2 {
				return nil, errors.New("not yet")
			}
		case "a", "b":
			started <- struct{}{}
			for len(started) < 2 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if c, ok := req.Args.Get("choice"); ok {
			return map[string]any{"release": delegation.Text(step), "choice": delegation.Text(c)}, nil
		}
		return "did " + delegation.Text(step), nil
	}}
}

// judge is a model judge that holds every condition and picks the last
// option of every choice, saying which model it asked and its tokens.
type judge struct{}

func (judge) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j.IsChoice() {
		return delegation.Verdict{Pick: j.Options[len(j.Options)-1], Asked: true, Model: "judge-model-1", TokensIn: 30, TokensOut: 3, Reasoning: "not yet"}, nil
	}
	return delegation.Verdict{Holds: true, Asked: true, Model: "judge-model-1", TokensIn: 40, TokensOut: 2, Reasoning: "it says ship"}, nil
}

// newRuns journals a run of each spec named in specs (fine, broken,
// release, fan).
func newRuns(t *testing.T, specs ...string) *runs { return newRunsB(t, specs...) }

// newRunsB is newRuns for a test or a benchmark.
func newRunsB(t testing.TB, specs ...string) *runs {
	t.Helper()
	r := &runs{dir: t.TempDir(), ids: map[string]string{}}
	r.runDir = filepath.Join(r.dir, "runs")
	r.opts = run.Options{RunDir: r.runDir, Services: map[string]service.Service{"w": worker()},
		Models: &run.ModelHooks{JudgeFor: func(*spec.Spec) delegation.Judge { return judge{} }}}
	texts := map[string]string{"fine": okSpec, "broken": failSpec, "release": gateSpec, "fan": parallelSpec, "review": fieldsSpec, "flaky": flakySpec, "leaky": secretSpec, "judged": judgedSpec, "chosen": choiceSpec}
	for _, name := range specs {
		file := name + ".prose.md"
		if err := os.WriteFile(filepath.Join(r.dir, file), []byte(texts[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		req := run.Request{Spec: file, Dir: r.dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
		res, err := run.Local{}.Run(context.Background(), req, r.opts)
		if res == nil || res.RunID == "" {
			t.Fatalf("run %s: no run journaled: %v", name, err)
		}
		r.ids[name] = res.RunID
	}
	return r
}
