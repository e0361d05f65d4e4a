package telemetry_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/telemetry"
)

const draftSpec = `---
name: drafted
kind: pattern
---

# Drafted

A writer drafts; a model decides whether the draft will do.

### Slots

- ` + "`writer`" + `: writes a draft of the brief

### Requires

- Pattern instance receives:
    writer: string              -- the service that drafts
    task_brief: string          -- what to draft

### Delegation

` + "```prose" + `
let d = call writer
  task_brief: task_brief
if d is good enough:
  return d
return "rejected"
` + "```" + `
`

const apiKey = "sk-telemetry-test-0123456789abcdef"

// fixture writes the spec and starts the fake model: the writer's request
// is answered by a model named differently from the one asked for, then
// the condition's by a verdict.
func fixture(t *testing.T) (dir string, env map[string]string, model *llmtest.Server) {
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "drafted.prose.md"), []byte(draftSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	model = llmtest.NewServer(t,
		llmtest.Reply{Body: `{"id":"c1","object":"chat.completion","created":1,"model":"fake-2026-01",` +
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"a fine draft"}}],` +
			`"usage":{"prompt_tokens":31,"completion_tokens":7,"total_tokens":38}}`},
		llmtest.Verdict(true, "it will do"))
	env = map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": apiKey, "PROSE_MODEL": "fake"}
	return dir, env, model
}

func runDrafted(t *testing.T, dir string, env map[string]string, brief string, tr *telemetry.Tracer) *run.Result {
	t.Helper()
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Getenv: func(k string) string { return env[k] },
		Environ: []string{"OPENAI_API_KEY=" + apiKey}, Telemetry: tr}
	req := run.Request{Spec: "drafted.prose.md", Dir: dir,
		Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "writer", Value: "llm"}},
			Inputs: []bind.Assignment{{Name: "task_brief", Value: brief}}}}
	res, err := run.Local{}.Run(context.Background(), req, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func byName(t *testing.T, spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func one(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	got := byName(t, spans, name)
	if len(got) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("%d spans named %q, want 1; spans: %v", len(got), name, names)
	}
	return got[0]
}

// A run with an llm slot, served by the in-process fake model through the
// real client: one run span, a call span under it, a chat span under the
// call with the GenAI attributes of the exchange, and a chat span for the
// condition the model decided.
func TestRunSpans(t *testing.T) {
	dir, env, model := fixture(t)
	env["PROSE_MAX_TOKENS"] = "777"
	env["PROSE_JUDGE_MAX_TOKENS"] = "55"
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	res := runDrafted(t, dir, env, "a short brief", telemetry.New(tp, telemetry.Options{}))
	spans := mem.GetSpans()

	root := one(t, spans, "invoke_workflow drafted")
	if root.Parent.IsValid() {
		t.Errorf("run span has a parent %v", root.Parent)
	}
	ra := attrs(root)
	if ra[telemetry.RunID].AsString() != res.RunID || ra[telemetry.OperationName].AsString() != "invoke_workflow" {
		t.Errorf("run span attributes %v, want run id %s", ra, res.RunID)
	}
	call := one(t, spans, "call writer")
	if call.Parent.SpanID() != root.SpanContext.SpanID() || call.SpanContext.TraceID() != root.SpanContext.TraceID() {
		t.Errorf("call span's parent %v, want the run span %v", call.Parent.SpanID(), root.SpanContext.SpanID())
	}
	ca := attrs(call)
	if ca[telemetry.CallSlot].AsString() != "writer" || ca[telemetry.CallAttempt].AsInt64() != 1 ||
		ca[telemetry.CallOutcome].AsString() != "ok" || !strings.HasPrefix(ca[telemetry.CallPath].AsString(), "L") {
		t.Errorf("call span attributes %v", ca)
	}
	if _, ok := ca[telemetry.CallJournal]; ok {
		t.Errorf("a live call is marked journaled: %v", ca)
	}

	chats := byName(t, spans, "chat fake")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2 (the slot's request and the condition's)", len(chats))
	}
	var slotChat, judgeChat tracetest.SpanStub
	for _, c := range chats {
		if c.Parent.SpanID() == call.SpanContext.SpanID() {
			slotChat = c
		} else if c.Parent.SpanID() == root.SpanContext.SpanID() {
			judgeChat = c
		}
	}
	if !slotChat.SpanContext.IsValid() || !judgeChat.SpanContext.IsValid() {
		t.Fatalf("chat spans' parents %v, %v: want one under the call and one under the run", chats[0].Parent.SpanID(), chats[1].Parent.SpanID())
	}
	sa := attrs(slotChat)
	want := map[attribute.Key]any{
		telemetry.OperationName: "chat", telemetry.ProviderName: "openai",
		telemetry.RequestModel: "fake", telemetry.ResponseModel: "fake-2026-01",
		telemetry.UsageInputTokens: int64(31), telemetry.UsageOutputTokens: int64(7),
	}
	for k, v := range want {
		if sa[k].AsInterface() != v {
			t.Errorf("chat span %s = %v, want %v", k, sa[k].AsInterface(), v)
		}
	}
	// What the request sent, as the server received it, and the reply's id.
	sent := model.Requests()[0]
	temp, ok := sent.Temperature()
	if !ok {
		t.Fatalf("the slot's request sent no temperature: %s", sent.JSON())
	}
	maxTokens, _ := sent.MaxTokens()
	if maxTokens != 777 {
		t.Fatalf("the slot's request sent max tokens %d, want PROSE_MAX_TOKENS 777", maxTokens)
	}
	for k, v := range map[attribute.Key]any{telemetry.ResponseID: "c1", telemetry.RequestTemperature: temp,
		telemetry.RequestMaxTokens: int64(maxTokens), telemetry.OutputType: "text"} {
		if got, ok := sa[k]; !ok || got.AsInterface() != v {
			t.Errorf("chat span %s = %v (set %v), want %v", k, got.AsInterface(), ok, v)
		}
	}
	if fr := sa[telemetry.ResponseFinishReasons].AsStringSlice(); !slices.Equal(fr, []string{"stop"}) {
		t.Errorf("finish reasons %v, want [stop]", fr)
	}
	if _, ok := sa[telemetry.InputMessages]; ok {
		t.Errorf("message content without Content: %v", sa[telemetry.InputMessages])
	}
	if _, ok := sa[telemetry.ErrorType]; ok {
		t.Errorf("error.type on a request that succeeded")
	}
	if ja := attrs(judgeChat); ja[telemetry.UsageInputTokens].AsInt64() != 10 || ja[telemetry.Condition].AsString() != "d is good enough" ||
		ja[telemetry.OutputType].AsString() != "json" {
		t.Errorf("judgment chat span %v: want its usage, condition and gen_ai.output.type json", ja)
	}
	// The verdict's request as the server received it, and its reply's id.
	judged := model.Requests()[1]
	jtemp, ok := judged.Temperature()
	if !ok {
		t.Fatalf("the judgment's request sent no temperature: %s", judged.JSON())
	}
	if jmax, _ := judged.MaxTokens(); jmax != 55 {
		t.Fatalf("the judgment's request sent max tokens %d, want PROSE_JUDGE_MAX_TOKENS 55", jmax)
	}
	ja := attrs(judgeChat)
	for k, v := range map[attribute.Key]any{telemetry.ResponseID: "chatcmpl-llmtest", telemetry.RequestTemperature: jtemp,
		telemetry.RequestMaxTokens: int64(55)} {
		if got, ok := ja[k]; !ok || got.AsInterface() != v {
			t.Errorf("judgment chat span %s = %v (set %v), want %v", k, got.AsInterface(), ok, v)
		}
	}
	u, _ := url.Parse(env["OPENAI_BASE_URL"])
	for _, c := range chats {
		ca := attrs(c)
		if ca[telemetry.ServerAddress].AsString() != u.Hostname() || strconv.FormatInt(ca[telemetry.ServerPort].AsInt64(), 10) != u.Port() {
			t.Errorf("chat span server %v:%v, want %s", ca[telemetry.ServerAddress].AsInterface(), ca[telemetry.ServerPort].AsInterface(), u.Host)
		}
	}
}

// With Content, the messages are in the chat span, redacted: the API key
// the brief carried is not.
func TestRunSpansContentRedacted(t *testing.T) {
	dir, env, _ := fixture(t)
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	runDrafted(t, dir, env, "say "+apiKey, telemetry.New(tp, telemetry.Options{Content: true}))
	spans := mem.GetSpans()
	var chat tracetest.SpanStub
	for _, c := range byName(t, spans, "chat fake") {
		if _, ok := attrs(c)[telemetry.InputMessages]; ok {
			chat = c
		}
	}
	a := attrs(chat)
	in, out := a[telemetry.InputMessages].AsString(), a[telemetry.OutputMessages].AsString()
	if !strings.Contains(in, `"role":"user"`) || !strings.Contains(in, "task_brief") || !strings.Contains(out, "a fine draft") {
		t.Errorf("messages: input %s, output %s", in, out)
	}
	for _, s := range spans {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), apiKey) {
				t.Errorf("span %s attribute %s holds the API key", s.Name, kv.Key)
			}
		}
	}
}

// A replay and a resume of the run mark every call answered from the
// journal and export no chat span: no model was asked.
func TestRerunSpansMarkJournaled(t *testing.T) {
	dir, env, model := fixture(t)
	res := runDrafted(t, dir, env, "a short brief", nil)
	asked := model.Count()
	for _, rerun := range []func(context.Context, string, run.Options) (*run.Result, error){run.Replay, run.Resume} {
		mem := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
		opts := run.Options{RunDir: filepath.Join(dir, "runs"), Getenv: func(k string) string { return env[k] },
			Telemetry: telemetry.New(tp, telemetry.Options{})}
		if _, err := rerun(context.Background(), res.RunID, opts); err != nil {
			t.Fatal(err)
		}
		spans := mem.GetSpans()
		call := one(t, spans, "call writer")
		if !attrs(call)[telemetry.CallJournal].AsBool() {
			t.Errorf("re-run call span not marked journaled: %v", call.Attributes)
		}
		if n := len(byName(t, spans, "chat fake")); n != 0 {
			t.Errorf("%d chat spans in a re-run that asked no model", n)
		}
		root := one(t, spans, "invoke_workflow drafted")
		if m := attrs(root)[telemetry.RunMode].AsString(); m == "live" || m == "" {
			t.Errorf("re-run's mode %q", m)
		}
	}
	if model.Count() != asked {
		t.Errorf("the model was asked again")
	}
}
