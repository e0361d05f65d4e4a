package render_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// counter is a responsibility rendered by a model (no Execution) that
// declares a tool.
const counter = `---
name: counter
kind: responsibility
---

# Counter

> Counts the words of a file by asking wc.

### Requires

- ` + "`file`" + `: the path of a text file

### Maintains

- ` + "`words`" + ` (integer): how many words the file holds, as wc -w counts them

### Tools

- ` + "`cli:wc`" + `: counts lines, words and bytes
`

// A drain's model render asks what prose run of the node alone asks:
// the same model, the same output cap (the acting cap, not a verdict's),
// the same tools (its ### Tools) and the same response format; and it
// runs the tool the model calls, as prose run's session does.
func TestModelRenderAsksAsRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "counter.prose.md")
	if err := os.WriteFile(path, []byte(counter), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("one two three\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Call("wc", map[string]any{"args": []string{"-w", notes}}),
		llmtest.JSON(map[string]any{"words": 3}),
		llmtest.Call("wc", map[string]any{"args": []string{"-w", notes}}),
		llmtest.JSON(map[string]any{"words": 3}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "k", "PROSE_MODEL": "scripted"}
	getenv := func(k string) string { return env[k] }

	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	models, err := run.NewModels(getenv, "", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := models.Client("")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	d := &render.Drain{Specs: g.Specs, Getenv: getenv}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: g, Store: st,
		Renderer:     func(*graph.Node) (reconcile.Renderer, error) { return &render.Model{Client: c, Drain: d}, nil },
		CallerInputs: map[string]map[string]any{"counter": {"file": notes}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 1 {
		for _, r := range res.Receipts {
			if r.Status == receipt.Failed {
				t.Log(r.Reason)
			}
		}
		t.Fatalf("rendered %d of 1", res.Rendered)
	}
	if _, err := (run.Local{}).Run(context.Background(), run.Request{Spec: path,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "file", Value: notes}}}}, run.Options{Getenv: getenv}); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 2 of the drain and 2 of the run", len(reqs))
	}
	for turn := range 2 {
		drain, alone := reqs[turn], reqs[2+turn]
		dn, dk := drain.MaxTokens()
		an, ak := alone.MaxTokens()
		if dn != an || dk != ak || dn == 0 {
			t.Errorf("turn %d: the drain asks %s %d, prose run %s %d", turn+1, dk, dn, ak, an)
		}
		if drain.Model() != alone.Model() {
			t.Errorf("turn %d: the drain asks model %q, prose run %q", turn+1, drain.Model(), alone.Model())
		}
		if !slices.Equal(drain.Tools(), alone.Tools()) || !slices.Equal(drain.Tools(), []string{"wc"}) {
			t.Errorf("turn %d: the drain offers tools %v, prose run %v", turn+1, drain.Tools(), alone.Tools())
		}
		df, af := drain.ResponseFormat(), alone.ResponseFormat()
		if df == nil || !strings.EqualFold(stringOf(df), stringOf(af)) {
			t.Errorf("turn %d: the drain's response format %v, prose run's %v", turn+1, df, af)
		}
	}
	// The second request of each carries what wc answered.
	for i, r := range []llmtest.Request{reqs[1], reqs[3]} {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, `"exit_code":0`) || !strings.Contains(last.Content, "3 ") {
			t.Errorf("request %d: the tool's answer is not what wc gave: %+v", i+1, last)
		}
	}
}

func stringOf(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// An Execution render's run takes prose run's model settings from the
// drain (--model, --base-url over the environment's), as prose run of
// the node does: the function it calls is rendered by that model, with
// the acting output cap.
func TestExecutionRenderTakesRunModelSettings(t *testing.T) {
	dir := t.TempDir()
	for name, src := range traced {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"n": 7}), llmtest.JSON(map[string]any{"n": 7}))
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k", "PROSE_MODEL": "from-env"}
	getenv := func(k string) string { return env[k] }
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	d := &render.Drain{Specs: g.Specs, Getenv: getenv, Model: "from-flag", BaseURL: srv.URL}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: g, Store: st, Ticks: []string{"tally"},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{Drain: d}, nil },
	})
	if err != nil || res.Rendered != 1 {
		t.Fatalf("drain: %v %+v", err, res)
	}
	if _, err := (run.Local{}).Run(context.Background(), run.Request{Spec: filepath.Join(dir, "tally.prose.md"), Model: "from-flag", BaseURL: srv.URL},
		run.Options{Getenv: getenv}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want one of the drain and one of the run", len(reqs))
	}
	dn, _ := reqs[0].MaxTokens()
	an, _ := reqs[1].MaxTokens()
	if reqs[0].Model() != "from-flag" || reqs[0].Model() != reqs[1].Model() || dn != an || string(reqs[0].Body) != string(reqs[1].Body) {
		t.Errorf("the drain asked model %q, max_tokens %d; prose run %q, %d; bodies\n%s\n%s", reqs[0].Model(), dn, reqs[1].Model(), an, reqs[0].Body, reqs[1].Body)
	}
}
