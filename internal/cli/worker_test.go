//go:build temporal

package cli

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/bind"
	temporallinked "github.com/proselang/prose/internal/temporalport/linked"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/temporal"
)

// runOnTestWorker runs the request as a workflow on the SDK's in-memory
// environment, with the activities prose worker builds from its model
// settings.
func runOnTestWorker(t *testing.T, req temporal.Request, model, baseURL string) (string, error) {
	a, err := workerActivities(model, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	acts := temporallinked.Activities(a)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(temporal.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
	env.RegisterActivityWithOptions(acts.Call, activity.RegisterOptions{Name: temporal.CallActivityName})
	env.RegisterActivityWithOptions(acts.Judge, activity.RegisterOptions{Name: temporal.JudgeActivityName})
	env.ExecuteWorkflow(temporal.WorkflowName, req)
	if err := env.GetWorkflowError(); err != nil {
		return "", err
	}
	var res temporal.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return string(res.Value), nil
}

func resolveTest(t *testing.T, path string, slots, config, inputs []string) temporal.Request {
	as := func(flag string, xs []string) []bind.Assignment {
		out, err := bind.ParseAssignments(flag, xs)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	req, err := temporal.Resolve(temporal.ResolveOptions{Path: path, HaveModel: true,
		Bindings: bind.Settings{Slots: as("--slot", slots), Config: as("--config", config), Inputs: as("--input", inputs)}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(req)
	var out temporal.Request
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A worker's llm slot is the model acting in the slot's role, prompted
// from the spec that travelled with the run; a condition that needs a
// model is judged by the worker's model.
func TestWorkerModelSlotAndJudge(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-worker")
	t.Setenv("PROSE_MODEL", "")
	srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"proceed": true, "reason": "fine"}))
	req := resolveTest(t, "std/patterns/guard.prose.md",
		[]string{"guard=llm", `target=exec:echo '"launched"'`}, nil, []string{"task_brief=deploy"})
	got, err := runOnTestWorker(t, req, "slot-model", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got != `{"result":"launched","proceeded":true}` {
		t.Errorf("result %s", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model() != "slot-model" {
		t.Fatalf("model requests: %d", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "guard") || !strings.Contains(body, "deploy") {
		t.Errorf("the slot's prompt lacks the slot or the brief: %s", body)
	}

	srv.Push(llmtest.Verdict(false, "it has rows"))
	req = resolveTest(t, "std/patterns/retry-with-learning.prose.md",
		[]string{`target=exec:echo '"rows"'`}, []string{"failure_criteria=the result is empty"}, []string{"task_brief=fetch"})
	got, err = runOnTestWorker(t, req, "judge-model", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"result":"rows"`) || !strings.Contains(got, `"attempts":1`) {
		t.Errorf("result %s", got)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Model() != "judge-model" || !strings.Contains(string(reqs[1].Body), "the result is empty") {
		t.Errorf("the judge was not asked about the criterion (%d requests)", len(reqs))
	}

	// Without a model on the worker, the run fails saying so.
	t.Setenv("OPENAI_API_KEY", "")
	_, err = runOnTestWorker(t, req, "", "")
	if err == nil || !strings.Contains(err.Error(), "no model configured") {
		t.Errorf("err = %v, want the worker's missing model named", err)
	}
}
