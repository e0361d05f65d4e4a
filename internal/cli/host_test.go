package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/mcpserve"
)

// Outside prose mcp, a slot bound to host is refused before the run
// starts, with exit 2.
func TestRunRefusesHostBinding(t *testing.T) {
	root := testenv.MustRoot(t)
	t.Chdir(root)
	code, _, stderr := runMain(t, "run", "--no-journal", "std/patterns/ratchet.prose.md", "--slot", "advancer=host",
		"--slot", "certifier=exec:testdata/run/certifier.sh", "--input", "task_brief=x")
	if code != 2 || !strings.Contains(stderr, "the host binding needs prose mcp") {
		t.Errorf("exit %d, stderr %q: want exit 2 saying the host binding needs prose mcp", code, stderr)
	}
}

// prose replay of a run whose advancer the host filled over MCP needs no
// host: it prints the run's value from the journal.
func TestReplayOfHostFilledRun(t *testing.T) {
	root := testenv.MustRoot(t)
	runDir := filepath.Join(t.TempDir(), "runs")
	srv := mcpserve.New(mcpserve.Options{RunDir: runDir, Dir: root})
	defer srv.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var started mcpserve.RunOutput
	call(t, cs, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"file": "std/patterns/ratchet.prose.md",
		"slots":  map[string]any{"advancer": "host", "certifier": "exec:testdata/run/certifier.sh"},
		"inputs": map[string]any{"task_brief": "ship 1.2"}, "config": map[string]any{"max_steps": 1}}}, &started)
	var out mcpserve.Outcome
	for range 20 { // result returns at once when a call waits; each waits at most 30 s otherwise
		call(t, cs, &mcp.CallToolParams{Name: "result", Arguments: map[string]any{"run_id": started.RunID, "wait_seconds": 30}}, &out)
		if out.Status != mcpserve.StatusRunning {
			break
		}
	}
	if out.Status != mcpserve.StatusWaiting {
		t.Fatalf("result %+v: want waiting on the host", out)
	}
	var pending mcpserve.PendingOutput
	call(t, cs, &mcp.CallToolParams{Name: "pending", Arguments: map[string]any{"run_id": started.RunID}}, &pending)
	if len(pending.Calls) != 1 {
		t.Fatalf("pending %+v: want the advancer's call", pending)
	}
	step := map[string]any{"step": 1, "action": "write the changelog"}
	call(t, cs, &mcp.CallToolParams{Name: "fill", Arguments: map[string]any{"run_id": started.RunID, "call": pending.Calls[0].Call, "value": step}}, &mcpserve.FillOutput{})
	deadline := time.Now().Add(2 * time.Minute) // a failure bound
	for out.Status != mcpserve.StatusOK && time.Now().Before(deadline) {
		call(t, cs, &mcp.CallToolParams{Name: "result", Arguments: map[string]any{"run_id": started.RunID, "wait_seconds": 30}}, &out)
		if out.Status == mcpserve.StatusFailed {
			t.Fatalf("run failed: %s", out.Error)
		}
	}
	srv.Close()
	t.Chdir(root)
	code, stdout, stderr := runMain(t, "replay", "--run-dir", runDir, started.RunID)
	if code != 0 {
		t.Fatalf("replay: exit %d, %s", code, stderr)
	}
	var v struct{ Result []map[string]any }
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || len(v.Result) != 1 || v.Result[0]["action"] != "write the changelog" {
		t.Errorf("replay printed %q: want the host's step", stdout)
	}
}
