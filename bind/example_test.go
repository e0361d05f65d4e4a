package bind_test

import (
	"fmt"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
)

// ExampleSpec shows how flags become typed values: max_steps is an integer
// because the spec declares it so, and certified_progress gets its default.
func ExampleSpec() {
	sp, _, err := callgraph.LoadSpec("std/patterns/ratchet.prose.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := bind.Spec(sp, &bind.Settings{
		Slots:  []bind.Assignment{{Name: "advancer", Value: "exec:./advance.sh"}, {Name: "certifier", Value: "exec:./certify.sh"}},
		Config: []bind.Assignment{{Name: "max_steps", Value: "3"}},
		Inputs: []bind.Assignment{{Name: "task_brief", Value: "ship"}},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := in.Globals()
	fmt.Printf("%T %v\n", g["max_steps"], g["max_steps"])
	fmt.Println(delegation.TypeName(g["certified_progress"]), g["advancer"].(delegation.Service).ServiceName())
	_, err = bind.Spec(sp, &bind.Settings{Slots: []bind.Assignment{{Name: "advancr", Value: "exec:x"}}}, nil)
	fmt.Println(err)
	// Output:
	// int64 3
	// list advancer
	// unknown slot "advancr" (did you mean "advancer"?)
	// slot "advancer" is not bound: add --slot advancer=exec:COMMAND (or llm, or a .prose.md path)
	// slot "certifier" is not bound: add --slot certifier=exec:COMMAND (or llm, or a .prose.md path)
	// missing required input "task_brief": add --input task_brief=VALUE (or --input-json)
}
