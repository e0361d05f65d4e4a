package journal_test

import (
	"context"
	"fmt"
	"os"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/service"
)

// A run is journaled by wrapping its host's caller (and judge, runtime);
// a replay of it answers every call from the journal.
func Example() {
	base, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(base)
	prog, _ := syntax.ParseString("double.prose.md", "let x = call doubler\n  n: 21\nreturn {answer: x}\n")
	calls := 0
	doubler := &service.Func{Name: "doubler", Fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		calls++
		n, _ := req.Args.Get("n")
		return n.(int64) * 2, nil
	}}
	globals := map[string]delegation.Value{"doubler": doubler}
	run := func(r *journal.Run) string {
		host := &delegation.Host{Caller: r.WrapCaller(service.Caller{}), Runtime: r.WrapRuntime(nil)}
		v, err := delegation.Run(context.Background(), prog, globals, host)
		if err := r.Finish(v, err); err != nil {
			return err.Error()
		}
		r.Close()
		out, _ := delegation.ToJSON(v)
		return string(out)
	}

	live, _ := journal.Create(base, journal.Header{Spec: "double.prose.md"}, journal.Options{})
	fmt.Println("live:  ", run(live), "calls:", calls)
	replay, _ := journal.Replay(base, live.ID(), journal.Options{})
	fmt.Println("replay:", run(replay), "calls:", calls)
	// Output:
	// live:   {"answer":42} calls: 1
	// replay: {"answer":42} calls: 1
}
