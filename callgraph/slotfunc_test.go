package callgraph_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/runhost"
)

// A pattern slot bound to a function (std/FORMAT.md: `--slot
// critic=std/roles/critic.prose.md`) calls that function for each call of
// the slot: rendered by the model when it has no Execution (issue 18,
// item 1), run when it has one, its own callees bound by dotted names.

var workerCritic = filepath.Join("..", "std", "patterns", "worker-critic.prose.md")

func runPattern(path string, slots []string, inputs map[string]string, env *bind.Env) (delegation.Value, error) {
	var b bind.Settings
	for _, s := range slots {
		name, value, _ := strings.Cut(s, "=")
		b.Slots = append(b.Slots, bind.Assignment{Name: name, Value: value})
	}
	for k, v := range inputs {
		b.Inputs = append(b.Inputs, bind.Assignment{Name: k, Value: v})
	}
	return runhost.Run(context.Background(), runhost.RunOptions{Path: path, Bindings: b, Env: env})
}

func TestSlotBoundToRenderedFunction(t *testing.T) {
	env, srv := renderEnv(t, llmtest.JSON(map[string]any{
		"accepted": true, "verdict": "accept", "reasoning": "meets the bar", "issues": []any{},
	}))
	v, err := runPattern(workerCritic,
		[]string{`worker=exec:echo '"the draft"'`, "critic=std/roles/critic.prose.md"},
		map[string]string{"task_brief": "write it", "criteria": "short"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, v); got != `{"result":"the draft","attempts":1,"final_critique":null}` {
		t.Errorf("value %s, want the worker's draft accepted in round 1", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want the one render of the critic", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, want := range []string{"the draft", "short", "accepted", "reasoning"} {
		if !strings.Contains(body, want) {
			t.Errorf("the render request lacks %q (the call's arguments and the critic's outputs): %s", want, body)
		}
	}
}

func TestSlotBoundToFunctionWithExecution(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"strict.prose.md": fn("strict", "output task_brief criteria", "verdict reasoning", exe(
			"let score = call scorer\n  text: output\nif score == \"\":\n  return { verdict: \"reject\", reasoning: \"no score\" }\nreturn { verdict: \"accept\", reasoning: score }")),
		// a sibling the Execution calls, served here by a dotted binding
		"scorer.prose.md": fn("scorer", "text", "score", ""),
	})
	env := &bind.Env{Nested: callgraph.NestedSpec}
	v, err := runPattern(workerCritic,
		[]string{`worker=exec:echo '"the draft"'`, "critic=" + filepath.Join(dir, "strict.prose.md"), `critic.scorer=exec:echo '"9/10"'`},
		map[string]string{"task_brief": "write it", "criteria": "short"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, v); got != `{"result":"the draft","attempts":1,"final_critique":null}` {
		t.Errorf("value %s, want the draft accepted by the function's Execution", got)
	}

	// A dotted binding the function never calls is refused with the name
	// meant, before anything runs.
	_, err = runPattern(workerCritic,
		[]string{`worker=exec:echo '"the draft"'`, "critic=" + filepath.Join(dir, "strict.prose.md"), `critic.scorr=exec:echo 1`},
		map[string]string{"task_brief": "write it", "criteria": "short"}, env)
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `critic.scorr`) || !strings.Contains(err.Error(), `did you mean "scorer"?`) {
		t.Errorf("unknown dotted binding: %v, want a usage error naming it with did-you-mean", err)
	}
}

// With no model configured, a slot bound to a rendered function is
// refused before the run starts, naming the slot and the node.
func TestSlotBoundToRenderedFunctionNeedsModel(t *testing.T) {
	_, err := runPattern(workerCritic,
		[]string{`worker=exec:echo '"the draft"'`, "critic=std/roles/critic.prose.md"},
		map[string]string{"task_brief": "write it", "criteria": "short"}, &bind.Env{Nested: callgraph.NestedSpec})
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a usage error", err)
	}
	for _, want := range []string{"--slot critic", "no model is configured", "critic.prose.md:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "no-delegation") {
		t.Errorf("a function bound as a slot is not a spec without a Delegation: %v", err)
	}
}
