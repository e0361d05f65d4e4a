package temporal_test

import (
	"context"
	"fmt"
	"os"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/temporal"
)

// A Go program picks the engine and runs the same Request on either: here
// the Temporal cluster named by PROSE_TEMPORAL_ADDRESS when it is set (a
// worker, `prose worker`, must serve the task queue), else this process.
func ExampleEngine() {
	var eng run.Engine = run.Local{}
	if conn := temporal.ConnFromEnv(temporal.Conn{TaskQueue: "reviews"}, os.Getenv); conn.Address != "" {
		eng = &temporal.Engine{Conn: conn}
	}
	res, err := eng.Run(context.Background(), run.Request{
		Spec: "std/patterns/guard.prose.md",
		Bindings: bind.Settings{
			Slots: []bind.Assignment{
				{Name: "guard", Value: `exec:echo '{"proceed": true}'`},
				{Name: "target", Value: `exec:echo '"launched"'`},
			},
			Inputs: []bind.Assignment{{Name: "task_brief", Value: "launch"}},
		},
	}, run.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.RunID, res.Value)
}
