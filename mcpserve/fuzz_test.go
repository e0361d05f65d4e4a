package mcpserve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzToolArguments: any JSON arguments of the run, result, replay,
// pending and fill tools (as an agent host may send them) give a result
// or an error, never a panic. The run tool's arguments are turned into
// the request only (nothing runs): each slot binding comes from the
// arguments as given, and the inputs become one JSON object.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{"file":"x.prose.md","slots":{"w":"exec:./w.sh","d":["llm","host"]},"config":{"n":3,"m":"fast","l":[1,"a"],"o":{"k":null}},"inputs":{"task_brief":"go","n":2}}`,
		`{"file":"x","slots":{"w":3}}`, `{"file":"x","slots":{"w":[1]}}`, `{"file":""}`, `{}`, `null`, `[]`,
		`{"run_id":"20261130T021500-ab12cd","wait_seconds":0}`, `{"run_id":"../../etc","wait_seconds":-1}`,
		`{"run_id":"x","call":"L3/1","value":{"a":[1,2]}}`, `{"run_id":"","call":"","value":null}`,
		`{"file":"x","inputs":{"a":1e400}}`, `{"file":"x","config":{"":""}}`,
	} {
		f.Add(s)
	}
	s := New(Options{RunDir: f.TempDir(), Dir: f.TempDir()})
	f.Cleanup(s.Close)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, args string) {
		var in RunInput
		if json.Unmarshal([]byte(args), &in) == nil {
			if r, err := request(in, json.RawMessage(args)); err == nil {
				n := 0
				for _, v := range in.Slots {
					if l, ok := v.([]any); ok {
						n += len(l)
					} else {
						n++
					}
				}
				if len(r.Bindings.Slots) != n || r.Spec != in.File {
					t.Fatalf("request(%s): %d slot bindings of %d, spec %q", args, len(r.Bindings.Slots), n, r.Spec)
				}
				if r.Bindings.InputJSON != "" && !strings.HasPrefix(r.Bindings.InputJSON, "{") {
					t.Fatalf("request(%s): inputs %s are not an object", args, r.Bindings.InputJSON)
				}
			}
		}
		var res ResultInput
		if json.Unmarshal([]byte(args), &res) == nil {
			res.WaitSeconds = min(res.WaitSeconds, 0) // no run is running: nothing to wait for
			s.result(ctx, nil, res)
			s.replayTool(ctx, nil, RunIDInput{RunID: res.RunID})
			s.pendingTool(ctx, nil, PendingInput{RunID: res.RunID})
		}
		var fill FillInput
		if json.Unmarshal([]byte(args), &fill) == nil {
			if _, _, err := s.fillTool(ctx, nil, fill); err == nil {
				t.Fatalf("fill(%s) answered a call no run waits for", args)
			}
		}
		var ans AnswerInput
		if json.Unmarshal([]byte(args), &ans) == nil {
			if _, _, err := s.answerTool(ctx, nil, ans); err == nil {
				t.Fatalf("answer(%s) answered a gate no run waits at", args)
			}
		}
	})
}
