package runhost_test

import (
	"context"
	"fmt"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
)

// ExampleRun runs the reliability example with two programs: a fetcher that
// always fails (so the fallback is used after three attempts) and a drafter
// that echoes its notes.
func ExampleRun() {
	v, err := runhost.Run(context.Background(), runhost.RunOptions{
		Path: "../testdata/run/reliability.prose.md",
		Bindings: bind.Settings{
			Slots: []bind.Assignment{
				{Name: "fetcher", Value: "exec:echo down >&2; exit 1"},
				{Name: "drafter", Value: "exec:sh ../testdata/run/drafter.sh"},
			},
			Inputs: []bind.Assignment{{Name: "topic", Value: "api-status"}, {Name: "fail_count", Value: "5"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := delegation.ToJSON(v)
	fmt.Println(string(out))
	// Output: "[ops] Draft article:\nFallback path: fallback for api-status"
}
