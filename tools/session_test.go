package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/procgroup"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
)

// The tests seal their journals with a key of their own; a helper
// process (see helperRun) runs one session and is killed by its test.
func TestMain(m *testing.M) {
	// The test binary is its own watchdog, as prose is: CLI tools and
	// MCP servers start behind procgroup's gate.
	procgroup.Init()
	if os.Getenv("PROSE_TOOLS_HELPER") == "1" {
		helperRun()
		return
	}
	dir, err := os.MkdirTemp("", "prose-tools-key-")
	if err != nil {
		panic(err)
	}
	os.Setenv(journal.KeyFileEnv, filepath.Join(dir, "journal.key"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// counterSpec is a function whose render may call the program tick.
const counterSpec = `---
name: tally
kind: function
---

# Tally

### Parameters

- ` + "`topic`" + `: what to tally

### Returns

- ` + "`count`" + ` (integer): how many ticks the tool reported

### Tools

- ` + "`cli:tick`" + `: counts its own calls
`

// fixture is a directory with the spec and a bin/ holding tick, a
// program that appends a line to ticks.log (the side-effect counter) and
// prints its arguments; PATH has bin/ first.
type fixture struct {
	dir, ticks string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	f := fixture{dir: dir, ticks: filepath.Join(dir, "ticks.log")}
	bin := filepath.Join(dir, "bin")
	must(t, os.Mkdir(bin, 0o755))
	must(t, os.WriteFile(filepath.Join(bin, "tick"), []byte("#!/bin/sh\necho \"$@\" >> "+f.ticks+"\necho \"tick $*\"\necho warn >&2\nexit 3\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "tally.prose.md"), []byte(counterSpec), 0o644))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return f
}

func (f fixture) count(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(f.ticks)
	if os.IsNotExist(err) {
		return 0
	}
	must(t, err)
	return strings.Count(string(b), "\n")
}

func (f fixture) request() run.Request {
	return run.Request{Spec: "tally.prose.md", Dir: f.dir,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "topic", Value: "ticks"}}}}
}

func (f fixture) options(model *llmtest.Server) run.Options {
	env := map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "test-key", "PROSE_MODEL": "fake"}
	return run.Options{RunDir: filepath.Join(f.dir, ".prose", "runs"), Getenv: func(k string) string { return env[k] }}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func asJSON(t *testing.T, v delegation.Value) string {
	t.Helper()
	b, err := delegation.ToJSON(v)
	must(t, err)
	return string(b)
}

// A scripted model asks for two tool calls, then answers: each runs the
// program with the argv the model gave, its exit code, stdout and stderr
// go back in a tool message, and the answer is the contract's JSON. A
// replay gives the same value with no model request and no tool run.
func TestCLISessionRunsAndReplays(t *testing.T) {
	f := newFixture(t)
	model := llmtest.NewServer(t,
		llmtest.Call("tick", map[string]any{"args": []string{"one", "two words"}}),
		llmtest.Call("tick", map[string]any{"args": []string{"again"}}),
		llmtest.JSON(map[string]any{"count": 2}))
	res, err := run.Local{}.Run(context.Background(), f.request(), f.options(model))
	must(t, err)
	if got := asJSON(t, res.Value); got != `{"count":2}` {
		t.Fatalf("value %s", got)
	}
	if n := f.count(t); n != 2 {
		t.Fatalf("the tool ran %d times, want 2", n)
	}
	b, _ := os.ReadFile(f.ticks)
	if string(b) != "one two words\nagain\n" {
		t.Errorf("the tool got %q, want each argv as the model gave it", b)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if tools := reqs[0].Tools(); len(tools) != 1 || tools[0] != "tick" {
		t.Errorf("offered %v, want exactly [tick]", tools)
	}
	msgs := reqs[1].Messages()
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.ToolCallID != "call_1" {
		t.Fatalf("second request ends with %+v, want the tool message answering call_1", last)
	}
	var out map[string]any
	must(t, json.Unmarshal([]byte(last.Content), &out))
	if out["exit_code"] != float64(3) || out["stdout"] != "tick one two words\n" || out["stderr"] != "warn\n" {
		t.Errorf("tool message %s, want exit code 3, its stdout and its stderr", last.Content)
	}
	if msgs[len(msgs)-2].Role != "assistant" || len(msgs[len(msgs)-2].ToolCalls) != 1 {
		t.Errorf("the assistant's tool call is not sent back before its result: %+v", msgs)
	}

	replayed, err := run.Replay(context.Background(), res.RunID, f.options(model))
	must(t, err)
	if got := asJSON(t, replayed.Value); got != `{"count":2}` {
		t.Errorf("replay value %s", got)
	}
	if n := model.Count(); n != 3 {
		t.Errorf("the replay made %d model requests", n-3)
	}
	if n := f.count(t); n != 2 {
		t.Errorf("the replay ran the tool %d times", n-2)
	}
}

// Each step of the session is a call of its own in the journal, under the
// render's path: two model turns with a tool call each, and the last turn.
func TestSessionStepsAreJournaledByPath(t *testing.T) {
	f := newFixture(t)
	model := llmtest.NewServer(t,
		llmtest.Call("tick", map[string]any{"args": []string{"a"}}),
		llmtest.Call("nope", map[string]any{"args": []string{"b"}}),
		llmtest.JSON(map[string]any{"count": 1}))
	res, err := run.Local{}.Run(context.Background(), f.request(), f.options(model))
	must(t, err)
	log, err := journal.ReadFile(res.Journal)
	must(t, err)
	var ends []string
	for _, r := range log.Records {
		if r.Type == journal.TypeEnd {
			ends = append(ends, r.ID.Key()+" "+r.Slot)
		}
	}
	// The outer L2 is the render's call (the run of a file-level function
	// calls it at its name: line), the inner L2 the node's line (its name
	// too), L18 the declaration's.
	want := []string{"L2>L2/1 model", "L2>L18/1/1 cli:tick", "L2>L2/2 model", "L2>L2/2/1 refused", "L2>L2/3 model", "L2 tally"}
	if strings.Join(ends, "\n") != strings.Join(want, "\n") {
		t.Errorf("journaled steps:\n%s\nwant:\n%s", strings.Join(ends, "\n"), strings.Join(want, "\n"))
	}
	// The undeclared tool was refused, ran nothing, and the model read why.
	if n := f.count(t); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
	msgs := model.Requests()[2].Messages()
	refusal := msgs[len(msgs)-1].Content
	if !strings.Contains(refusal, "refused: nope is not a tool of tally") || !strings.Contains(refusal, "tick") {
		t.Errorf("refusal %q does not say what was refused and what may be called", refusal)
	}
}

// A model that calls tools forever stops at --max-turns, with an error
// naming the bound.
func TestMaxTurnsStopsASession(t *testing.T) {
	f := newFixture(t)
	model := llmtest.NewServer(t, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "tick", Arguments: `{"args":["x"]}`}}, Times: -1})
	req := f.request()
	req.MaxTurns = 3
	_, err := run.Local{}.Run(context.Background(), req, f.options(model))
	if err == nil || !strings.Contains(err.Error(), "--max-turns=3") || !strings.Contains(err.Error(), "tally.prose.md:") {
		t.Fatalf("err %v, want one naming --max-turns=3 at the node", err)
	}
	if n := model.Count(); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	if n := f.count(t); n != 3 {
		t.Errorf("%d tool runs, want 3", n)
	}
}

// A tool that is not on PATH refuses the run before anything starts,
// naming the declaration and its place.
func TestUnresolvedToolRefusesTheRun(t *testing.T) {
	f := newFixture(t)
	must(t, os.WriteFile(filepath.Join(f.dir, "tally.prose.md"), []byte(strings.Replace(counterSpec, "cli:tick", "cli:no-such-tool-here", 1)), 0o644))
	model := llmtest.NewServer(t)
	_, err := run.Local{}.Run(context.Background(), f.request(), f.options(model))
	if err == nil || !strings.Contains(err.Error(), "declared at tally.prose.md:18:4") || !strings.Contains(err.Error(), "no-such-tool-here") {
		t.Fatalf("err %v, want the declaration named at 18:4", err)
	}
	if !errors.As(err, new(*bind.UsageError)) {
		t.Errorf("err %T, want a usage error (prose run exits 2)", err)
	}
	if model.Count() != 0 {
		t.Errorf("the model was asked before the refusal")
	}
}

// helperRun is the process a kill test kills: it runs the fixture of
// PROSE_TOOLS_DIR against the model at OPENAI_BASE_URL.
func helperRun() {
	dir := os.Getenv("PROSE_TOOLS_DIR")
	f := fixture{dir: dir}
	opts := run.Options{RunDir: filepath.Join(dir, ".prose", "runs"), Getenv: os.Getenv}
	_, err := run.Local{}.Run(context.Background(), f.request(), opts)
	fmt.Fprintln(os.Stderr, "helper ended:", err)
	os.Exit(1)
}

// Killed with SIGKILL while the model thinks after its second tool call,
// a run resumes without running tool calls 1 and 2 again: the resumed
// session asks the model once more, with both results.
func TestKillAfterSecondToolCallThenResume(t *testing.T) {
	f := newFixture(t)
	model := llmtest.NewServer(t,
		llmtest.Call("tick", map[string]any{"args": []string{"1"}}),
		llmtest.Call("tick", map[string]any{"args": []string{"2"}}),
		llmtest.Reply{Content: `{"count": 99}`, Delay: llmtest.Duration(10 * time.Minute)})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROSE_TOOLS_HELPER=1", "PROSE_TOOLS_DIR="+f.dir,
		"OPENAI_BASE_URL="+model.URL, "OPENAI_API_KEY=test-key", "PROSE_MODEL=fake")
	must(t, cmd.Start())
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(2 * time.Minute); model.Count() < 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the helper made %d model requests", model.Count())
		}
	}
	must(t, syscall.Kill(cmd.Process.Pid, syscall.SIGKILL))
	cmd.Wait()
	if n := f.count(t); n != 2 {
		t.Fatalf("%d tool runs before the kill, want 2", n)
	}
	runs, err := journal.List(filepath.Join(f.dir, ".prose", "runs"))
	must(t, err)
	if len(runs) != 1 {
		t.Fatalf("%d runs journaled", len(runs))
	}
	model.Push(llmtest.JSON(map[string]any{"count": 2}))
	res, err := run.Resume(context.Background(), runs[0].ID, f.options(model))
	must(t, err)
	if got := asJSON(t, res.Value); got != `{"count":2}` {
		t.Errorf("resumed value %s", got)
	}
	if n := f.count(t); n != 2 {
		t.Errorf("the resume ran tool calls again: %d runs in all, want 2", n)
	}
	reqs := model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests in all, want 4 (3 before the kill, 1 after)", len(reqs))
	}
	var tools int
	for _, m := range reqs[3].Messages() {
		if m.Role == "tool" {
			tools++
		}
	}
	if tools != 2 {
		t.Errorf("the resumed request carries %d tool results, want 2", tools)
	}
}
