package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
)

const judgedSpec = `---
name: judged
kind: pattern
---

# Judged

Asks a worker, then a model whether the answer is good enough.

### Slots

- ` + "`worker`" + `

### Delegation

` + "```prose" + `
let r = call worker
try:
  if r is good enough:
    return "good"
  return "not good"
catch as e:
  return {caught: e.kind, message: e.message}
` + "```" + `
`

// A try that caught an unreadable model verdict (the model answers
// "maybe") replays and resumes to the live result, through the real model
// client and the library API.
func TestCaughtUnreadableVerdictReplaysAndResumes(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Reply{Content: "maybe", Times: -1})
	env := map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "test-key", "PROSE_MODEL": "fake"}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "judged.prose.md"), []byte(judgedSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	worker := &service.Func{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return "meh", nil
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]service.Service{"w": worker},
		Getenv: func(k string) string { return env[k] }}
	req := run.Request{Spec: "judged.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	res, err := run.Local{}.Run(context.Background(), req, opts)
	if err != nil {
		t.Fatal(err)
	}
	live := toJSON(t, res.Value)
	if !strings.Contains(live, `"caught":"judge"`) {
		t.Fatalf("live result %s: want the unreadable verdict caught", live)
	}
	asked := model.Count()
	for _, rerun := range []func(context.Context, string, run.Options) (*run.Result, error){run.Replay, run.Resume} {
		got, err := rerun(context.Background(), res.RunID, opts)
		if err != nil {
			t.Fatalf("re-run: %v", err)
		}
		if g := toJSON(t, got.Value); g != live {
			t.Errorf("re-run result %s, live %s", g, live)
		}
	}
	if model.Count() != asked {
		t.Errorf("the model was asked again (%d requests, %d live): replay and resume answer from the journal", model.Count(), asked)
	}
}

// Main-like reentrance: two runs of the same spec at once, from other
// directories, each with its own journal.
func TestConcurrentRunsFromOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "judged.prose.md"), []byte(strings.Replace(judgedSpec, "if r is good enough:", "if r.ok:", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	worker := &service.Func{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return delegation.FromJSON([]byte(`{"ok": true}`))
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]service.Service{"w": worker}, Getenv: func(string) string { return "" }}
	req := run.Request{Spec: "judged.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	errs := make(chan error, 4)
	ids := make(chan string, 4)
	for range 4 {
		go func() {
			res, err := run.Local{}.Run(context.Background(), req, opts)
			if err == nil && toJSON(t, res.Value) != `"good"` {
				err = os.ErrInvalid
			}
			if res != nil {
				ids <- res.RunID
			}
			errs <- err
		}()
	}
	seen := map[string]bool{}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		seen[<-ids] = true
	}
	if len(seen) != 4 {
		t.Errorf("run ids %v: want 4 journals", seen)
	}
}

func toJSON(t testing.TB, v delegation.Value) string {
	b, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const slotSpec = `---
name: asked
kind: pattern
---

# Asked

Asks a model acting in a slot, twice.

### Slots

- ` + "`writer`" + `

### Delegation

` + "```prose" + `
let a = call writer
  topic: "tea"
let b = call writer
  topic: "coffee"
return [a, b]
` + "```" + `
`

// The trace of a run with an llm slot holds each model request: the
// prompt, the reply and the tokens of every attempt, and the slot's system
// prompt once.
func TestTraceHoldsModelExchanges(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Reply{Content: "a short answer", TokensIn: 42, TokensOut: 7, Times: -1})
	env := map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "test-key-abcdefgh", "PROSE_MODEL": "fake"}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "asked.prose.md"), []byte(slotSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	req := run.Request{Spec: "asked.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "writer", Value: "llm"}}}}
	if _, err := (run.Local{}).Run(context.Background(), req, run.Options{Trace: &trace, Getenv: func(k string) string { return env[k] }}); err != nil {
		t.Fatal(err)
	}
	var models []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(trace.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["t"] == "model" {
			models = append(models, rec)
		}
	}
	if len(models) != 2 {
		t.Fatalf("%d model records, want 2:\n%s", len(models), trace.String())
	}
	for i, topic := range []string{"tea", "coffee"} {
		m := models[i]
		if m["slot"] != "writer" || m["reply"] != "a short answer" || m["tokens_in"] != 42.0 || m["tokens_out"] != 7.0 ||
			!strings.Contains(fmt.Sprint(m["prompt"]), topic) {
			t.Errorf("model record %d = %v", i+1, m)
		}
	}
	if _, ok := models[0]["system"]; !ok {
		t.Errorf("the first exchange lacks the system prompt")
	}
	if _, ok := models[1]["system"]; ok || models[1]["system_sha256"] != models[0]["system_sha256"] {
		t.Errorf("the second exchange repeats the system prompt, or names another")
	}
	if strings.Contains(trace.String(), "test-key-abcdefgh") {
		t.Errorf("the API key is in the trace")
	}
}
