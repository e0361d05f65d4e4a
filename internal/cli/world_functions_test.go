package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
)

// U07 of upstream's basic-unit-suite from the command line: with
// alert-projection rendered by the model and --slot
// alert-projection.format-alert-copy binding the function it calls to a
// program, the model's tool call runs the program once, and the receipt
// counts it.
func TestWorldModelRenderCallsFunction(t *testing.T) {
	dir, project := unitSuiteProject(t)
	// Every other node prints a constant truth by its id.
	nodes := filepath.Join(dir, "nodes.sh")
	script := `#!/bin/sh
in=$(cat)
case "$in" in
*'"node":"counter-events"'*|*'"node": "counter-events"'*) echo '{"counts": {"high_water_mark": 7, "counts_by_kind": {"click": 7}}, "raw_events": {"accepted_event_ids": ["e1"]}, "last_seen_at": "e1"}' ;;
*'"node":"count-summary"'*|*'"node": "count-summary"'*) echo '{"total": 7, "by_kind": {"click": 7}, "threshold_crossed": true, "explanation": "7 events"}' ;;
*'"node":"count-trend"'*|*'"node": "count-trend"'*) echo '{"structured": {"current_total": 7, "previous_total": 0, "direction": "up"}, "valid_until": "2999-01-01T00:00:00Z"}' ;;
*'"node":"alert-state"'*|*'"node": "alert-state"'*) echo '{"status": "alert", "threshold": 5, "evidence_refs": []}' ;;
*'"node":"raw-event-auditor"'*|*'"node": "raw-event-auditor"'*) echo '{"accepted_event_ids": ["e1"], "duplicate_event_ids": [], "malformed_events": []}' ;;
*) echo '{"status": "alert", "total": 7, "audit_health": "ok", "trend": "up", "evidence_refs": []}' ;;
esac
`
	log := filepath.Join(dir, "fn.log")
	fn := filepath.Join(dir, "fn.sh")
	fnScript := "#!/bin/sh\n{ cat; echo; } >>'" + log + "'\necho '{\"subject\": \"ALERT at threshold 5\", \"body\": \"crossed\"}'\n"
	for p, s := range map[string]string{nodes: script, fn: fnScript} {
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(t,
		llmtest.Call("format-alert-copy", map[string]any{"AlertState": map[string]any{"status": "alert", "threshold": 5}}),
		llmtest.JSON(map[string]any{
			"structured_summary": map[string]any{"status": "alert", "threshold": 5, "subject": "ALERT at threshold 5"},
			"markdown":           "ALERT at threshold 5", "html": "<p>ALERT at threshold 5</p>", "projection_hash": "h1",
		}),
	)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	var out, errw bytes.Buffer
	code := Main([]string{"run", project, "--state", filepath.Join(dir, "state"), "--format", "json",
		"--model", "test-model", "--base-url", srv.URL,
		"--event", `counter-events={"id": "e1", "kind": "click", "value": 7}`,
		"--slot", "alert-projection=llm", "--slot", "alert-projection.format-alert-copy=exec:" + fn,
		"--slot", "*=exec:" + nodes}, strings.NewReader(""), &out, &errw)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errw.String())
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(strings.TrimSpace(string(b)), "\n") + 1; len(bytes.TrimSpace(b)) == 0 || n != 1 || !strings.Contains(string(b), "AlertState") {
		t.Fatalf("function calls:\n%s", b)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			Node, Status string
			Cost         struct{ Requests, Programs int }
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Node != "alert-projection" {
			continue
		}
		found = true
		if r.Status != "rendered" || r.Cost.Requests != 2 || r.Cost.Programs != 1 {
			t.Errorf("alert-projection receipt: %s", line)
		}
	}
	if !found {
		t.Fatalf("no receipt of alert-projection:\n%s%s", out.String(), errw.String())
	}
	if !strings.Contains(errw.String(), "rendered 7, skipped 0, failed 0; 2 model requests") {
		t.Errorf("summary:\n%s", errw.String())
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("%d model requests", len(srv.Requests()))
	}
}

// Unbound, a function with no Execution of its own is rendered by the
// model the node's render uses (--model, --base-url): one more model
// request, counted in the node's receipt.
func TestWorldModelRenderCallsModelFunction(t *testing.T) {
	dir, project := unitSuiteProject(t)
	srv := llmtest.NewServer(t,
		llmtest.Call("format-alert-copy", map[string]any{"AlertState": map[string]any{"status": "alert", "threshold": 5}}),
		llmtest.JSON(map[string]any{"result": map[string]any{"subject": "ALERT from the model", "body": "crossed"}}),
		llmtest.JSON(map[string]any{
			"structured_summary": map[string]any{"status": "alert", "threshold": 5, "subject": "ALERT from the model"},
			"markdown":           "ALERT", "html": "<p>ALERT</p>", "projection_hash": "h1",
		}),
	)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("PROSE_MODEL", "")
	var out, errw bytes.Buffer
	code := Main([]string{"run", project, "--state", filepath.Join(dir, "state"), "--format", "json",
		"--model", "test-model", "--base-url", srv.URL,
		"--slot", "alert-projection=llm", "--slot", `*=exec:echo '{"status": "alert", "threshold": 5, "evidence_refs": []}'`},
		strings.NewReader(""), &out, &errw)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests (exit %d)\n%s%s", len(reqs), code, out.String(), errw.String())
	}
	if reqs[1].Model() != "test-model" || !strings.Contains(string(reqs[1].Body), `carry out the function \"format-alert-copy\"`) {
		t.Errorf("the function's render:\n%s", reqs[1].Body)
	}
	if tr := strings.Join(func() []string {
		var s []string
		for _, m := range reqs[2].Messages() {
			if m.Role == "tool" {
				s = append(s, m.Content)
			}
		}
		return s
	}(), ""); !strings.Contains(tr, "ALERT from the model") {
		t.Errorf("tool result %q", tr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			Node, Status string
			Cost         struct{ Requests, Programs int }
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.Node == "alert-projection" && (r.Status != "rendered" || r.Cost.Requests != 3 || r.Cost.Programs != 0) {
			t.Errorf("alert-projection receipt: %s", line)
		}
	}
}

// unitSuiteProject copies the specs of upstream's basic-unit-suite into
// DIR/proj of a temporary DIR, and returns DIR and the project.
func unitSuiteProject(t *testing.T) (dir, project string) {
	t.Helper()
	src := testenv.Corpus015(t, "examples/basic-unit-suite/src")
	dir = t.TempDir()
	project = filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(src, "*.prose.md"))
	for _, f := range files {
		copyFile(t, f, filepath.Join(project, filepath.Base(f)))
	}
	return dir, project
}
