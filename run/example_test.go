package run_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
)

// A std pattern run in-process: the ratchet's advancer is a Go function,
// its certifier another that answers in words, so a model (here a fake
// one speaking the OpenAI API) judges whether each verdict certifies the
// proposal. The run is journaled and canceled in its third step, then
// resumed through the library alone: the steps journaled before the
// cancel are answered from the journal, the rest run live.
func Example_resume() {
	model := llmtest.Start(llmtest.Reply{Content: `{"reasoning": "it says fine", "holds": true}`, Times: -1})
	defer model.Close()
	env := map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "test-key", "PROSE_MODEL": "fake"}

	ctx, cancel := context.WithCancel(context.Background())
	var proposals, verdicts atomic.Int64
	advance := &service.Func{Name: "advancer", Fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return fmt.Sprintf("step %d", proposals.Add(1)), nil
	}}
	certify := &service.Func{Name: "certifier", Fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		if verdicts.Add(1) == 3 {
			cancel() // the process is stopped in the middle of the third step
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return "fine", nil
	}}
	req := run.Request{
		Spec: "std/patterns/ratchet.prose.md",
		Bindings: bind.Settings{
			Slots:  []bind.Assignment{{Name: "advancer", Value: "go:advance"}, {Name: "certifier", Value: "go:certify"}},
			Config: []bind.Assignment{{Name: "max_steps", Value: "4"}},
			Inputs: []bind.Assignment{{Name: "task_brief", Value: "count to four"}},
		},
	}
	dir, _ := os.MkdirTemp("", "prose-run-example-")
	defer os.RemoveAll(dir)
	opts := run.Options{
		RunDir:   dir,
		Services: map[string]service.Service{"advance": advance, "certify": certify},
		Getenv:   func(k string) string { return env[k] },
	}
	res, err := run.Local{}.Run(ctx, req, opts)
	fmt.Println("first run:", res.RunID != "", strings.Contains(fmt.Sprint(err), "canceled"))

	res, err = run.Resume(context.Background(), res.RunID, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := delegation.ToJSON(res.Value)
	fmt.Println("resumed:", string(out))
	fmt.Printf("answered from the journal %d, live %d; proposals made %d\n", res.Answered, res.Calls-res.Answered, proposals.Load())
	// Output:
	// first run: true true
	// resumed: {"result":["step 1","step 2","step 3","step 4"]}
	// answered from the journal 5, live 3; proposals made 4
}
