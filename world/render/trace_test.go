package render_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/telemetry"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// traced is a node whose Execution calls a function that a model
// renders.
var traced = map[string]string{
	"tally.prose.md": "---\nname: tally\nkind: responsibility\n---\n\n# Tally\n\n### Maintains\n\n- `t`: n\n\n### Execution\n\n```prose\nlet s = call score\nreturn { t: s }\n```\n\n### Continuity\n\nself-driven\n",
	"score.prose.md": "---\nname: score\nkind: function\n---\n\n# Score\n\n### Returns\n\n- `n`: a number\n",
}

// A drain exported to a span file (the file exporter of --otel-file) is
// one trace nesting drain > render > the Execution's run > its call >
// the model request that rendered the call, each span's parent read
// from the file; the run's span names the render's journal.
func TestDrainTraceNestsRenderCallModel(t *testing.T) {
	dir := t.TempDir()
	for name, src := range traced {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"n": 7}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "k", "PROSE_MODEL": "scripted"}
	getenv := func(k string) string { return env[k] }
	file := filepath.Join(t.TempDir(), "spans.jsonl")
	x, err := telemetry.Open(context.Background(), telemetry.Config{File: file, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	w := x.Tracer().World(dir, telemetry.RunInfo{BaseURL: srv.URL})

	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "world")
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	d := &render.Drain{Specs: g.Specs, Getenv: getenv, State: state, Telemetry: w.Tracer()}
	ctx, end := w.Drain(context.Background())
	res, err := reconcile.Drain(ctx, reconcile.Options{
		Graph: g, Store: st, Ticks: []string{"tally"},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) {
			return &render.Execution{Drain: d}, nil
		},
		Rendering: func(ctx context.Context, n *graph.Node) (context.Context, func(error)) { return w.Render(ctx, n.ID) },
	})
	end(1, err)
	if err != nil || res.Rendered != 1 {
		t.Fatalf("drain: %v %+v", err, res)
	}
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans := readSpans(t, file)
	byID := map[string]telemetry.FileSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	var chat *telemetry.FileSpan
	for i, s := range spans {
		if strings.HasPrefix(s.Name, "chat") {
			chat = &spans[i]
		}
	}
	if chat == nil {
		t.Fatalf("no chat span among %d spans", len(spans))
	}
	var chain []string
	trace := chat.TraceID
	for s, ok := *chat, true; ok; s, ok = byID[s.ParentSpanID] {
		chain = append(chain, strings.Fields(s.Name)[0])
		if s.TraceID != trace {
			t.Errorf("span %s in trace %s, the chat in %s", s.Name, s.TraceID, trace)
		}
		if s.ParentSpanID == "" {
			break
		}
	}
	if got, want := strings.Join(chain, " < "), "chat < call < invoke_workflow < render < drain"; got != want {
		t.Errorf("the model request's ancestry is %s, want %s", got, want)
	}
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "invoke_workflow") && s.Attributes[string(telemetry.RunID)] != "drain-1" {
			t.Errorf("the render's run span names the run %v, want its journal drain-1", s.Attributes[string(telemetry.RunID)])
		}
	}
}

func readSpans(t *testing.T, path string) []telemetry.FileSpan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []telemetry.FileSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s telemetry.FileSpan
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// A model render's spans: its model requests (chat) and the run of a
// function it calls (invoke_workflow) are under its render span, in the
// drain's trace.
func TestModelRenderTraceNestsFunctionRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"brief.prose.md": "---\nname: brief\nkind: responsibility\n---\n\n# Brief\n\n### Maintains\n\n- `line`: one line on the `score`\n\n### Continuity\n\nself-driven\n",
		"score.prose.md": traced["score.prose.md"],
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(t, llmtest.Call("score", map[string]any{}), llmtest.JSON(map[string]any{"line": "seven"}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "k", "PROSE_MODEL": "scripted"}
	getenv := func(k string) string { return env[k] }
	models, err := run.NewModels(getenv, "", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := models.Client("")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spans.jsonl")
	x, err := telemetry.Open(context.Background(), telemetry.Config{File: file, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	w := x.Tracer().World(dir, telemetry.RunInfo{BaseURL: srv.URL})
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	d := &render.Drain{Specs: g.Specs, Getenv: getenv, Telemetry: w.Tracer()}
	ctx, end := w.Drain(context.Background())
	res, err := reconcile.Drain(ctx, reconcile.Options{
		Graph: g, Store: st, Ticks: []string{"brief"},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) {
			return &render.Model{Client: c, Drain: d, Slots: []bind.Assignment{{Name: "score", Value: "exec:echo 7"}}, Exchanged: w.Chat}, nil
		},
		Rendering: func(ctx context.Context, n *graph.Node) (context.Context, func(error)) { return w.Render(ctx, n.ID) },
	})
	end(1, err)
	if err != nil || res.Rendered != 1 {
		t.Fatalf("drain: %v %+v", err, res)
	}
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := readSpans(t, file)
	var renderID string
	for _, s := range spans {
		if s.Name == "render brief" {
			renderID = s.SpanID
		}
	}
	under := map[string]int{}
	for _, s := range spans {
		if s.ParentSpanID == renderID && renderID != "" {
			under[strings.Fields(s.Name)[0]]++
		}
	}
	if under["chat"] != 2 || under["invoke_workflow"] != 1 {
		t.Errorf("under render brief: %v; want 2 chat spans and the function's run", under)
	}
}
