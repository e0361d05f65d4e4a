package mcpserve

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/internal/testenv"
)

// gateWorld is a server and an in-process client that may take
// elicitations (elicit nil: a client without the capability).
func gateWorld(t *testing.T, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *hostWorld {
	return connectHost(t, testenv.MustRoot(t), elicit)
}

var releaseRun = RunInput{File: "testdata/gates/release.prose.md", Slots: map[string]any{"shipper": "exec:cat"}}

const releaseValue = `{"choice":"ship","release":"v1.2"}`

// awaitWaiting polls result until the run waits at gate (a failure bound,
// not a synchronisation: result answers at once while a gate waits).
func (w *hostWorld) awaitWaiting(t *testing.T, id, gate string) PendingCall {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out := w.result(t, id, 5)
		if out.Status == StatusWaiting && len(out.Pending) == 1 && out.Pending[0].Call == gate {
			return out.Pending[0]
		}
		if out.Status != StatusRunning && out.Status != StatusWaiting {
			t.Fatalf("run ended %+v, want it to wait at %s", out, gate)
		}
	}
	t.Fatalf("the run never waited at %s", gate)
	return PendingCall{}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Without elicitation, a gate is a pending call that result shows with
// its question; the answer tool answers it, refusing an answer of the
// wrong kind; the run finishes and replays with nobody asked.
func TestGateAnsweredThroughAnswerTool(t *testing.T) {
	w := gateWorld(t, nil)
	id := w.start(t, releaseRun)
	p := w.awaitWaiting(t, id, "L19")
	if p.Slot != "ask_user" || p.Question != "Which release should ship?" {
		t.Fatalf("first gate %+v", p)
	}
	if e := w.tool(t, "answer", map[string]any{"run_id": id, "value": map[string]any{"a": 1}}, nil); !strings.Contains(e, "ask_user asks for a string") || !strings.Contains(e, "still waits") {
		t.Fatalf("an object for ask_user: %q", e)
	}
	var ao AnswerOutput
	if e := w.tool(t, "answer", map[string]any{"run_id": id, "value": "v1.2"}, &ao); e != "" || ao.Gate != "L19" || ao.Resume {
		t.Fatalf("answer: %q %+v", e, ao)
	}
	p = w.awaitWaiting(t, id, "L20")
	if p.Slot != "gate" || jsonText(t, p.Question) != `{"options":["ship","hold"],"release":"v1.2"}` {
		t.Fatalf("second gate %+v", p)
	}
	if e := w.tool(t, "answer", map[string]any{"run_id": id, "gate": "L20", "value": map[string]any{"choice": "ship"}}, nil); e != "" {
		t.Fatalf("answer: %s", e)
	}
	out := w.result(t, id, 30)
	if out.Status != StatusOK || jsonText(t, out.Value) != releaseValue {
		t.Fatalf("result %+v", out)
	}
	var rep Outcome
	if e := w.tool(t, "replay", map[string]any{"run_id": id}, &rep); e != "" || jsonText(t, rep.Value) != releaseValue {
		t.Fatalf("replay: %q %+v", e, rep)
	}
}

// A client that takes elicitations is asked each gate as a form: a string
// field for ask_user, a choice among a gate's options.
func TestGateReachesTheClientAsElicitation(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	elicit := func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		schema, _ := json.Marshal(r.Params.RequestedSchema)
		mu.Lock()
		asked = append(asked, r.Params.Message+" "+string(schema))
		mu.Unlock()
		if strings.Contains(string(schema), `"choice"`) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "ship"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "v1.2"}}, nil
	}
	w := gateWorld(t, elicit)
	id := w.start(t, releaseRun)
	out := w.result(t, id, 30)
	for out.Status == StatusRunning || out.Status == StatusWaiting {
		out = w.result(t, id, 30)
	}
	if out.Status != StatusOK || jsonText(t, out.Value) != releaseValue {
		t.Fatalf("result %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`Which release should ship? {"properties":{"answer":{"type":"string"}},"required":["answer"],"type":"object"}`,
		`{"options":["ship","hold"],"release":"v1.2"} {"properties":{"choice":{"enum":["ship","hold"],"type":"string"}},"required":["choice"],"type":"object"}`,
	}
	if !reflect.DeepEqual(asked, want) {
		t.Fatalf("elicitations\n%q\nwant\n%q", asked, want)
	}
}

// A declined elicitation leaves the gate pending: the answer tool still
// answers it.
func TestDeclinedElicitationLeavesTheGatePending(t *testing.T) {
	w := gateWorld(t, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	})
	id := w.start(t, releaseRun)
	w.awaitWaiting(t, id, "L19")
	if e := w.tool(t, "answer", map[string]any{"run_id": id, "value": "v1.2"}, nil); e != "" {
		t.Fatal(e)
	}
	w.awaitWaiting(t, id, "L20")
	if e := w.tool(t, "fill", map[string]any{"run_id": id, "call": "L20", "value": map[string]any{"choice": "ship"}}, nil); e != "" {
		t.Fatalf("fill answers a gate too: %s", e)
	}
	if out := w.result(t, id, 30); out.Status != StatusOK || jsonText(t, out.Value) != releaseValue {
		t.Fatalf("result %+v", out)
	}
}

// The test tool runs prose test and returns each test's expectations.
func TestTestTool(t *testing.T) {
	w := gateWorld(t, nil)
	var out TestOutput
	if e := w.tool(t, "test", map[string]any{"paths": []string{"std/tests/guard-proceeds.test.prose.md"}}, &out); e != "" {
		t.Fatal(e)
	}
	if len(out.Results) != 1 || out.Results[0].Status != "pass" || !out.OK || out.Passed != 1 || len(out.Results[0].Items) == 0 {
		t.Fatalf("test: %+v", out)
	}
	for _, it := range out.Results[0].Items {
		if it.Status != "pass" || !strings.Contains(it.Pos, "guard-proceeds.test.prose.md:") {
			t.Errorf("item %+v", it)
		}
	}
	// The schema asks for one path at least; the SDK refuses fewer.
	if e := w.tool(t, "test", map[string]any{"paths": []string{}}, nil); !strings.Contains(e, "minItems") {
		t.Fatalf("no paths: %q", e)
	}
}

// A gate that declares fields is asked as a form of those fields, typed,
// so that the answer the form gives is one the gate takes.
func TestElicitFieldsOfAGate(t *testing.T) {
	q := map[string]any{"question": "Review", "options": []any{"go", "stop"}, "fields": map[string]any{"approved": "boolean", "notes": "string"}}
	raw, _ := json.Marshal(elicitParams("gate", q).RequestedSchema)
	want := `{"properties":{"approved":{"type":"boolean"},"choice":{"enum":["go","stop"],"type":"string"},"notes":{"type":"string"}},"required":["choice","approved","notes"],"type":"object"}`
	if string(raw) != want {
		t.Fatalf("schema %s\nwant %s", raw, want)
	}
}

// A gate's answer filled by the host is checked and shaped as every
// answer is: a bare option is {"choice": OPTION}, another choice is
// refused and the gate still waits.
func TestFilledGateAnswerIsChecked(t *testing.T) {
	q, _ := delegation.FromJSON([]byte(`{"options": ["go", "stop"]}`))
	c := &hostCall{gate: func(raw json.RawMessage) (json.RawMessage, error) { return gate.Shape("gate", q, raw) }}
	v, err := c.check("go", nil)
	if got, _ := delegation.ToJSON(v); err != nil || string(got) != `{"choice":"go"}` {
		t.Fatalf("check(go) = %s, %v", got, err)
	}
	if _, err := c.check(map[string]any{"choice": "aprove"}, nil); err == nil || !strings.Contains(err.Error(), `not one of the options ["go", "stop"]`) {
		t.Fatalf("check(aprove) = %v", err)
	}
}

// On a session of protocol 2025-11-25 (no multi round-trip requests),
// one result call asks both gates of a run, one elicitation after the
// other, and returns the run's value, structured.
func TestTwoGatesInOneResultCall(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	w := connectHostAt(t, testenv.MustRoot(t), func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, r.Params.Message)
		mu.Unlock()
		if _, ok := r.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)["choice"]; ok {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "ship"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "v1.2"}}, nil
	}, "2025-11-25")
	if v := w.cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s", v)
	}
	id := w.start(t, releaseRun)
	res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "result", Arguments: map[string]any{"run_id": id, "wait_seconds": 30}})
	if err != nil || res.IsError || res.InputRequests != nil {
		t.Fatalf("result: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out Outcome
	if err := json.Unmarshal(raw, &out); err != nil || out.Status != StatusOK || jsonText(t, out.Value) != releaseValue {
		t.Fatalf("result %s: want ok with %s", raw, releaseValue)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("asked %q: want both gates", asked)
	}
}

// On a session of protocol 2025-11-25, a declined form ends the call
// with the structured waiting result (never input requests), and the
// gate is not asked again.
func TestDeclinedGateGivesAStructuredWaitingResult(t *testing.T) {
	var mu sync.Mutex
	n := 0
	w := connectHostAt(t, testenv.MustRoot(t), func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		n++
		mu.Unlock()
		return &mcp.ElicitResult{Action: "decline"}, nil
	}, "2025-11-25")
	id := w.start(t, releaseRun)
	for range 2 {
		res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "result", Arguments: map[string]any{"run_id": id, "wait_seconds": 30}})
		if err != nil || res.IsError || res.InputRequests != nil || res.StructuredContent == nil {
			t.Fatalf("result: %v %+v", err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out Outcome
		if err := json.Unmarshal(raw, &out); err != nil || out.Status != StatusWaiting || len(out.Pending) != 1 || out.Pending[0].Call != "L19" {
			t.Fatalf("result %s: want waiting at L19", raw)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 1 {
		t.Fatalf("asked %d times, want once", n)
	}
}

// On a session of protocol 2026-07-28, a run call that waits asks the
// gates as input requests; the client's retries (their request state
// names the run) wait for the run they started instead of starting
// another, and the call ends with the run's value.
func TestRunCallRetriedWithAnswersStartsOneRun(t *testing.T) {
	asked := 0
	w := gateWorld(t, func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		if _, ok := r.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)["choice"]; ok {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "ship"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "v1.2"}}, nil
	})
	if v := w.cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	in := map[string]any{"file": releaseRun.File, "slots": releaseRun.Slots, "wait_seconds": 30}
	var out RunOutput
	if e := w.tool(t, "run", in, &out); e != "" {
		t.Fatal(e)
	}
	if out.Status != StatusOK || jsonText(t, out.Value) != releaseValue || asked != 2 {
		t.Fatalf("run %+v after %d forms: want ok with %s after 2", out, asked, releaseValue)
	}
	var runs RunsOutput
	if e := w.tool(t, "runs", map[string]any{}, &runs); e != "" || len(runs.Runs) != 1 || runs.Runs[0].RunID != out.RunID {
		t.Fatalf("runs %+v: want the one run %s", runs.Runs, out.RunID)
	}
}
