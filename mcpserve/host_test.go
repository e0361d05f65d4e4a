package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/run"
)

// hostWorld is a server and an in-process client acting as the agent
// host: it sees the progress notifications and calls the tools.
type hostWorld struct {
	root, runDir string
	cs           *mcp.ClientSession
	notes        chan string
}

func newHostWorld(t *testing.T) *hostWorld {
	return connectHost(t, testenv.MustRoot(t), nil)
}

// connectHost starts a server over dir and connects an in-process client
// to it that records progress notifications and takes elicitations with
// elicit (nil: a client without the capability).
func connectHost(t *testing.T, dir string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *hostWorld {
	return connectHostAt(t, dir, elicit, "")
}

// connectHostAt is connectHost with a client that asks for protocol
// version ("": the SDK's latest); a client of a version before
// 2026-07-28 knows no multi round-trip requests, as the TypeScript SDK's
// does not.
func connectHostAt(t *testing.T, dir string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), version string) *hostWorld {
	return connectServer(t, New(Options{RunDir: filepath.Join(t.TempDir(), "runs"), Dir: dir}), elicit, version)
}

// connectServer connects a client as connectHostAt does to srv.
func connectServer(t *testing.T, srv *Server, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), version string) *hostWorld {
	w := &hostWorld{root: srv.o.Dir, runDir: srv.o.RunDir, notes: make(chan string, 256)}
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "v0"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: version != "" && version < "2026-07-28"},
		ElicitationHandler: elicit,
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case w.notes <- r.Params.Message:
			default: // a test that does not read them must not block the server
			}
		}})
	w.cs, err = client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.cs.Close() })
	return w
}

// tool calls name; it returns the structured result decoded into out, or
// the tool error's text.
func (w *hostWorld) tool(t *testing.T, name string, args, out any) string {
	t.Helper()
	res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if out != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return ""
}

// awaitPending polls result until run id waits for the host, then
// returns the one pending call of run id, which must be of slot (a
// failure bound, not a synchronisation: result answers at once while a
// call waits).
func (w *hostWorld) awaitPending(t *testing.T, id, slot string) PendingCall {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if out := w.result(t, id, 5); out.Status != StatusWaiting {
			continue
		}
		var out PendingOutput
		if e := w.tool(t, "pending", map[string]any{"run_id": id}, &out); e != "" {
			t.Fatalf("pending: %s", e)
		}
		if len(out.Calls) != 1 || out.Calls[0].Slot != slot || out.Calls[0].RunID != id {
			t.Fatalf("pending %+v: want one call of %s in run %s", out.Calls, slot, id)
		}
		return out.Calls[0]
	}
	t.Fatalf("no call of %s became pending", slot)
	return PendingCall{}
}

func (w *hostWorld) start(t *testing.T, in RunInput) string {
	t.Helper()
	var out RunOutput
	if e := w.tool(t, "run", in, &out); e != "" {
		t.Fatalf("run: %s", e)
	}
	return out.RunID
}

func (w *hostWorld) result(t *testing.T, id string, wait float64) Outcome {
	t.Helper()
	var out Outcome
	if e := w.tool(t, "result", map[string]any{"run_id": id, "wait_seconds": wait}, &out); e != "" {
		t.Fatalf("result: %s", e)
	}
	return out
}

// The host fills the ratchet's advancer through pending and fill; the
// certifier is the repository's program. The run finishes with the
// steps the host gave, and a replay answers them from the journal, with
// no host to ask.
func TestHostFillsTheRatchetAdvancer(t *testing.T) {
	w := newHostWorld(t)
	id := w.start(t, RunInput{File: "std/patterns/ratchet.prose.md",
		Slots:  map[string]any{"advancer": "host", "certifier": "exec:testdata/run/certifier.sh"},
		Inputs: map[string]any{"task_brief": "ship 1.2"}, Config: map[string]any{"max_steps": 2}})
	steps := []map[string]any{
		{"step": 1.0, "action": "write the changelog"},
		{"step": 2.0, "action": "tag the release", "checked": true},
	}
	var calls []string
	for i, step := range steps {
		c := w.awaitPending(t, id, "advancer")
		calls = append(calls, c.Call)
		if !strings.Contains(c.Contract, "ensures: one proposed next step") || !strings.Contains(c.Contract, "requires: task_brief") {
			t.Errorf("contract %q: want the advancer's requires and ensures", c.Contract)
		}
		args, _ := c.Arguments.(map[string]any)
		if args["task_brief"] != "ship 1.2" {
			t.Errorf("arguments %v: want the task brief", c.Arguments)
		}
		if got, _ := args["certified_progress"].([]any); len(got) != i {
			t.Errorf("call %d: certified_progress %v, want the %d steps certified so far", i+1, args["certified_progress"], i)
		}
		if st := w.result(t, id, 0).Status; st != StatusWaiting {
			t.Errorf("result of a run waiting on the host: status %q, want %q", st, StatusWaiting)
		}
		if e := w.tool(t, "fill", FillInput{RunID: id, Call: c.Call, Value: step}, nil); e != "" {
			t.Fatalf("fill: %s", e)
		}
	}
	if calls[0] == calls[1] {
		t.Errorf("both advancer calls have the path %q: want one per round", calls[0])
	}
	want := map[string]any{"result": []any{map[string]any(steps[0]), map[string]any(steps[1])}}
	var out Outcome
	for range 10 { // result waits up to 30 s each time
		if out = w.result(t, id, 30); out.Status != StatusRunning {
			break
		}
	}
	if out.Status != StatusOK || !reflect.DeepEqual(out.Value, want) {
		t.Fatalf("result %+v: want ok with the host's steps %v", out, want)
	}
	// Replay in a run without any host binding: the journal answers.
	res, err := run.Replay(context.Background(), id, run.Options{RunDir: w.runDir})
	if err != nil {
		t.Fatalf("replay with no host: %v", err)
	}
	v, _ := jsonValue(res.Value)
	if !reflect.DeepEqual(v, want) || res.Answered != res.Calls || res.Calls != 4 {
		t.Errorf("replay: value %v, %d of %d calls answered; want %v, all 4 answered", v, res.Answered, res.Calls, want)
	}
	var rep Outcome
	if e := w.tool(t, "replay", RunIDInput{RunID: id}, &rep); e != "" || rep.Status != StatusOK || !reflect.DeepEqual(rep.Value, want) {
		t.Errorf("replay tool: %+v %s", rep, e)
	}
}

// A fill that does not keep the slot's declared shape is refused with
// what was wrong and what is wanted; the call still waits, and a good
// fill completes the run.
func TestHostFillRefusesAWrongShape(t *testing.T) {
	w := newHostWorld(t)
	id := w.start(t, RunInput{File: "std/patterns/ratchet.prose.md",
		Slots:  map[string]any{"advancer": "exec:testdata/run/advancer.sh", "certifier": "host"},
		Inputs: map[string]any{"task_brief": "ship 1.2"}, Config: map[string]any{"max_steps": 1}})
	c := w.awaitPending(t, id, "certifier")
	const shape = `{verdict: "certify" | "reject", reason}`
	if c.Shape != shape {
		t.Errorf("shape %q, want %q", c.Shape, shape)
	}
	for _, bad := range []struct {
		value any
		says  string
	}{
		{"looks good", "a string, not a JSON object"},
		{map[string]any{"reason": "fine"}, "lacks verdict"},
		{map[string]any{"verdict": "maybe"}, `not one of ["certify" "reject"]`},
		{nil, "no value"},
	} {
		e := w.tool(t, "fill", map[string]any{"run_id": id, "call": c.Call, "value": bad.value}, nil)
		if !strings.Contains(e, bad.says) || !strings.Contains(e, shape) || !strings.Contains(e, "still waits") {
			t.Errorf("fill %v: error %q, want it to say %q, the shape wanted and that the call waits", bad.value, e, bad.says)
		}
		if again := w.awaitAgain(t, id); again.Call != c.Call {
			t.Errorf("after a refused fill, pending %+v: want %s still waiting", again, c.Call)
		}
		if st := w.result(t, id, 0).Status; st != StatusWaiting {
			t.Errorf("after a refused fill: status %q, want waiting", st)
		}
	}
	if e := w.tool(t, "fill", FillInput{RunID: id, Call: "no-such-call", Value: map[string]any{"verdict": "certify"}}, nil); !strings.Contains(e, "pending tool") {
		t.Errorf("fill of an unknown call: %q, want it to point at pending", e)
	}
	if e := w.tool(t, "fill", FillInput{RunID: id, Call: c.Call, Value: map[string]any{"verdict": "certify"}}, nil); e != "" {
		t.Fatalf("good fill: %s", e)
	}
	var out Outcome
	for range 10 {
		if out = w.result(t, id, 30); out.Status != StatusRunning {
			break
		}
	}
	obj, _ := out.Value.(map[string]any)
	if list, _ := obj["result"].([]any); out.Status != StatusOK || len(list) != 1 {
		t.Fatalf("result %+v: want ok with the one certified step", out)
	}
}

// awaitAgain is the pending call of run id, which is already listed.
func (w *hostWorld) awaitAgain(t *testing.T, id string) PendingCall {
	t.Helper()
	var out PendingOutput
	if e := w.tool(t, "pending", map[string]any{"run_id": id}, &out); e != "" || len(out.Calls) != 1 {
		t.Fatalf("pending: %v %s", out.Calls, e)
	}
	return out.Calls[0]
}

// Outside prose mcp a host binding is refused before the run starts.
func TestHostBindingNeedsMCP(t *testing.T) {
	root := testenv.MustRoot(t)
	_, err := run.Local{}.Run(context.Background(), run.Request{Spec: "std/patterns/ratchet.prose.md", Dir: root,
		Slots:    []run.Slot{{Name: "advancer", Binding: run.Host{}}, {Name: "certifier", Binding: run.Exec{Command: "testdata/run/certifier.sh"}}},
		Bindings: run.Bindings{Inputs: []run.Assignment{{Name: "task_brief", Value: "x"}}}}, run.Options{RunDir: t.TempDir()})
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the host binding needs prose mcp") {
		t.Errorf("err %v: want a usage error saying the host binding needs prose mcp", err)
	}
	if b, err := run.ParseBinding("host"); err != nil || b != (run.Host{}) {
		t.Errorf("ParseBinding(host) = %v, %v", b, err)
	}
}
