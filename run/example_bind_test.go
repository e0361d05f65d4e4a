package run_test

import (
	"context"
	"fmt"

	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
)

// The library's ratchet pattern run in-process with typed bindings: the
// advancer is a Go function, the certifier a model (here a fake one
// speaking the OpenAI API, which certifies every step but the second).
func Example() {
	model := llmtest.Start(
		llmtest.Reply{Content: `{"verdict": "certify", "reason": "ok"}`},
		llmtest.Reply{Content: `{"verdict": "reject", "reason": "too big"}`},
		llmtest.Reply{Content: `{"verdict": "certify", "reason": "ok"}`, Times: -1},
	)
	defer model.Close()
	env := map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "test-key", "PROSE_MODEL": "fake"}

	steps := 0
	advance := run.Func{Name: "advance", Fn: func(ctx context.Context, args map[string]any) (any, error) {
		steps++
		if rejected, ok := args["rejection_feedback"].(map[string]any); ok {
			return fmt.Sprintf("step %d, smaller: the last was %v", steps, rejected["reason"]), nil
		}
		return fmt.Sprintf("step %d", steps), nil
	}}
	req := run.Request{
		Spec: "std/patterns/ratchet.prose.md",
		Slots: []run.Slot{
			{Name: "advancer", Binding: advance},
			{Name: "certifier", Binding: run.Model{}},
		},
		Bindings: run.Bindings{
			Config: []run.Assignment{{Name: "max_steps", Value: "3"}},
			Inputs: []run.Assignment{{Name: "task_brief", Value: "count to three"}},
		},
	}
	res, err := run.Local{}.Run(context.Background(), req, run.Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := res.JSON()
	fmt.Println(string(out))
	fmt.Println("model calls:", res.ModelUsage.ModelCalls)
	// Output:
	// {"result":["step 1","step 3, smaller: the last was too big"]}
	// model calls: 3
}
