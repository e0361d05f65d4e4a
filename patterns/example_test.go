package patterns_test

import (
	"context"
	"fmt"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/patterns"
)

// ExampleRun runs the reliability example with two programs: a fetcher that
// always fails (so the fallback is used after three attempts) and a drafter
// that echoes its notes.
func ExampleRun() {
	v, err := patterns.Run(context.Background(), patterns.RunOptions{
		Path: "../testdata/run/reliability.prose.md",
		Bindings: patterns.Bindings{
			Slots: []patterns.Assignment{
				{Name: "fetcher", Value: "exec:echo down >&2; exit 1"},
				{Name: "drafter", Value: "exec:sh ../testdata/run/drafter.sh"},
			},
			Inputs: []patterns.Assignment{{Name: "topic", Value: "api-status"}, {Name: "fail_count", Value: "5"}},
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

// ExampleBind shows how flags become typed values: max_steps is an integer
// because the spec declares it so, and certified_progress gets its default.
func ExampleBind() {
	sp, _, err := patterns.LoadSpec("std/patterns/ratchet.prose.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := patterns.Bind(sp, &patterns.Bindings{
		Slots:  []patterns.Assignment{{Name: "advancer", Value: "exec:./advance.sh"}, {Name: "certifier", Value: "exec:./certify.sh"}},
		Config: []patterns.Assignment{{Name: "max_steps", Value: "3"}},
		Inputs: []patterns.Assignment{{Name: "task_brief", Value: "ship"}},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := in.Globals()
	fmt.Printf("%T %v\n", g["max_steps"], g["max_steps"])
	fmt.Println(delegation.TypeName(g["certified_progress"]), g["advancer"].(delegation.Service).ServiceName())
	_, err = patterns.Bind(sp, &patterns.Bindings{Slots: []patterns.Assignment{{Name: "advancr", Value: "exec:x"}}}, nil)
	fmt.Println(err)
	// Output:
	// int64 3
	// list advancer
	// unknown slot "advancr" (did you mean "advancer"?)
	// slot "advancer" is not bound: add --slot advancer=exec:COMMAND (or llm, or a .prose.md path)
	// slot "certifier" is not bound: add --slot certifier=exec:COMMAND (or llm, or a .prose.md path)
	// missing required input "task_brief": add --input task_brief=VALUE (or --input-json)
}
