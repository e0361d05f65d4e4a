package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/run"
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
	worker := &patterns.FuncService{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return "meh", nil
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]patterns.Service{"w": worker},
		Getenv: func(k string) string { return env[k] }}
	req := run.Request{Spec: "judged.prose.md", Dir: dir, Bindings: patterns.Bindings{Slots: []patterns.Assignment{{Name: "worker", Value: "go:w"}}}}
	res, err := run.Run(context.Background(), req, opts)
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
	worker := &patterns.FuncService{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return delegation.FromJSON([]byte(`{"ok": true}`))
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]patterns.Service{"w": worker}, Getenv: func(string) string { return "" }}
	req := run.Request{Spec: "judged.prose.md", Dir: dir, Bindings: patterns.Bindings{Slots: []patterns.Assignment{{Name: "worker", Value: "go:w"}}}}
	errs := make(chan error, 4)
	ids := make(chan string, 4)
	for range 4 {
		go func() {
			res, err := run.Run(context.Background(), req, opts)
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
