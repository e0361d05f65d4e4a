package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

const judgedRunSpec = "---\nname: judged\nkind: pattern\n---\n\n# Judged\n\nAsks a worker, then decides in plain words whether the answer will do.\n\n" +
	"### Slots\n\n- `worker`\n  - requires: task\n  - ensures: an answer to the task\n\n" +
	"### Requires\n\n- Pattern instance receives:\n    worker: string -- the service\n    task: string   -- the task\n\n" +
	"### Ensures\n\n- result: the answer, or null\n\n" +
	"### Delegation\n\n```prose\nlet answer = call worker\n  task: task\nif answer reads like a finished piece of work:\n  return { result: answer }\nreturn { result: null }\n```\n"

const testKey = "sk-test-0123456789abcdefghij"

// runWithModel runs judgedRunSpec with a scripted model server configured.
func runWithModel(t *testing.T, srv *llmtest.Server, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runSpecWithModel(t, srv, "judged.prose.md", judgedRunSpec, args...)
}

// runSpecWithModel writes src as file in a fresh folder and runs it there
// with a scripted model server configured; the API key must not leak.
func runSpecWithModel(t *testing.T, srv *llmtest.Server, file, src string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("PROSE_MODEL", "model-env")
	code, stdout, stderr = runMain(t, append([]string{"run", "--no-journal", file}, args...)...)
	trace, _ := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	for _, s := range []string{stdout, stderr, string(trace)} {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key leaked:\n%s", s)
		}
	}
	return code, stdout, stderr
}

func TestRunAsksTheModelJudge(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Verdict(true, "it reads as complete"))
	code, out, errw := runWithModel(t, srv, "--slot", `worker=exec:echo '"a draft"'`, "--input", "task=write", "--trace", "trace.jsonl")
	if code != 0 || out != "{\n  \"result\": \"a draft\"\n}\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errw)
	}
	if srv.Count() != 1 || srv.Requests()[0].Model() != "model-env" {
		t.Errorf("%d requests, model %q", srv.Count(), srv.Requests()[0].Model())
	}
	if !strings.Contains(errw, "1 judgment (1 by a model") || !strings.Contains(errw, "model calls: 1") {
		t.Errorf("stderr lacks the model totals:\n%s", errw)
	}
}

func TestRunModelSlotAndFlagOverride(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("Half a sentence"), llmtest.Verdict(false, "it stops mid-sentence"))
	code, out, errw := runWithModel(t, srv, "--slot", "worker=llm", "--input", "task=write a haiku", "--model", "model-flag")
	if code != 0 || out != "{\n  \"result\": null\n}\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errw)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		if r.Model() != "model-flag" {
			t.Errorf("model %q, want the --model flag's", r.Model())
		}
	}
	sys := reqs[0].Messages()[0].Content
	if !strings.Contains(sys, "an answer to the task") || !strings.Contains(reqs[0].Messages()[1].Content, "write a haiku") {
		t.Errorf("slot request: %s", reqs[0].Body)
	}
	if !strings.Contains(string(reqs[1].Body), "answer reads like a finished piece of work") {
		t.Errorf("judge request: %s", reqs[1].Body)
	}
}

func TestRunLLMSlotNeedsAModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "judged.prose.md"), []byte(judgedRunSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("PROSE_MODEL", "")
	code, _, stderr := runMain(t, "run", "--no-journal", "judged.prose.md", "--slot", "worker=llm", "--input", "task=x")
	if code != 2 || !strings.Contains(stderr, "worker=llm needs a model: pass --model or set PROSE_MODEL, or write llm:MODEL") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests", srv.Count())
	}
}

const echoRunSpec = "---\nname: echo\nkind: pattern\n---\n\n# Echo\n\nCalls one service.\n\n" +
	"### Slots\n\n- `svc`\n  - requires: msg\n\n" +
	"### Requires\n\n- Pattern instance receives:\n    svc: string -- the service\n    msg: string -- the message\n\n" +
	"### Delegation\n\n```prose\nreturn call svc\n  msg: msg\n```\n"

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestRunResultWriteFailureIsARunFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "echo.prose.md"), []byte(echoRunSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var errw bytes.Buffer
	code := Main([]string{"run", "--no-journal", "-q", "echo.prose.md", "--slot", "svc=exec:cat", "--input", "msg=x"},
		strings.NewReader(""), brokenWriter{}, &errw)
	if code != 1 || errw.String() != "prose: writing the result: broken pipe\n" {
		t.Errorf("exit %d, stderr %q", code, errw.String())
	}
}

func TestIterations(t *testing.T) {
	for id, want := range map[string]string{
		"L33/2":       "iteration 2 of its loop",
		"L33/2/3":     "iterations 2, 3 of its loops, outermost first",
		"L5/2>L9/4/1": "iterations 4, 1 of its loops, outermost first",
		"L5/2>L9":     "made by a nested spec; the id's parts are separated by >",
	} {
		if got := iterations(delegation.MustParsePath(id)); got != want {
			t.Errorf("iterations(%q) = %q, want %q", id, got, want)
		}
	}
}

// The usage line counts judgments decided from the data next to the model
// calls, and credentials written in the base URL never reach the trace.
func TestRunUsageCountsJudgmentsWithoutAModel(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("step one"), llmtest.Text("step two"))
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("OPENAI_BASE_URL", strings.Replace(srv.URL, "http://", "http://bob:hunter2pass@", 1))
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("PROSE_MODEL", "model-env")
	code, stdout, stderr := runMain(t, "run", "--no-journal", "std/patterns/ratchet.prose.md", "--slot", "advancer=llm",
		"--slot", `certifier=exec:echo '{"verdict": "certify"}'`, "--input", "task_brief=t", "--config", "max_steps=2",
		"--trace", "trace.jsonl")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stderr, "model calls: 2") || !strings.Contains(stderr, "2 decided without a model") {
		t.Errorf("stderr lacks the totals:\n%s", stderr)
	}
	trace, _ := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	if !strings.Contains(string(trace), `"model_usage":{"model_calls":2,`) || !strings.Contains(string(trace), `"judge_avoided":2`) {
		t.Errorf("run.end lacks the model usage:\n%s", trace)
	}
	for _, s := range []string{stdout, stderr, string(trace)} {
		if strings.Contains(s, "hunter2pass") || strings.Contains(s, testKey) {
			t.Errorf("a credential leaked:\n%s", s)
		}
	}
}

const tryJudgeSpec = "---\nname: tryjudge\nkind: pattern\n---\n\n# Try Judge\n\nJudges an answer, falling back when the verdict cannot be read.\n\n" +
	"### Slots\n\n- `worker`\n  - requires: task\n\n" +
	"### Requires\n\n- Pattern instance receives:\n    worker: string -- the service\n    task: string   -- the task\n\n" +
	"### Delegation\n\n```prose\nlet answer = call worker\n  task: task\ntry:\n  if answer reads like a finished piece of work:\n    return \"finished\"\n  return \"unfinished\"\ncatch as e:\n  return e.kind\n```\n"

// A verdict the model never makes readable is a run-time error that try
// catches, end to end.
func TestRunUnreadableVerdictIsCatchable(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "I cannot say.", Times: -1})
	code, stdout, stderr := runSpecWithModel(t, srv, "tryjudge.prose.md", tryJudgeSpec,
		"-q", "--slot", `worker=exec:echo '"a draft"'`, "--input", "task=t")
	if code != 0 || stdout != "\"judge\"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if srv.Count() < 2 {
		t.Errorf("%d requests: the judge should have asked again before giving up", srv.Count())
	}
}
