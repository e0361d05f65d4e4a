package mcpserve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The run tool binds an input typed run as prose run does: to the run it
// names in the server's run directory, or refused when there is none.
func TestRunToolBindsRunInputs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"echo.prose.md": "---\nname: echo\nkind: function\n---\n\n### Parameters\n\n- `n`: in\n\n### Returns\n\n- `n`: the same\n",
		"insp.prose.md": "---\nname: insp\nkind: function\n---\n\n### Parameters\n\n- `subject`: run — the run\n\n### Returns\n\n- `subject`: as bound\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := filepath.Join(t.TempDir(), "runs")
	w := connectServer(t, New(Options{RunDir: runs, Dir: dir}), nil, "")
	var first RunOutput
	if e := w.tool(t, "run", json.RawMessage(`{"file": "echo.prose.md", "slots": {"echo": "exec:cat"}, "inputs": {"n": 1}, "wait_seconds": 30}`), &first); e != "" || first.Status != "ok" {
		t.Fatalf("the first run: %q, %+v", e, first)
	}
	var out RunOutput
	args := `{"file": "insp.prose.md", "slots": {"insp": "exec:tee given.json"}, "inputs": {"subject": "` + first.RunID + `"}, "wait_seconds": 30}`
	if e := w.tool(t, "run", json.RawMessage(args), &out); e != "" {
		t.Fatal(e)
	}
	given, err := os.ReadFile(filepath.Join(dir, "given.json"))
	want := `"path":"` + filepath.Join(runs, first.RunID) + `"`
	if out.Status != "ok" || err != nil || !strings.Contains(string(given), want) || !strings.Contains(string(given), `"status":"ok"`) {
		t.Errorf("the run ended %s; the program was given %s (%v), want the run bound (%s)", out.Status, given, err, want)
	}
	if e := w.tool(t, "run", json.RawMessage(`{"file": "insp.prose.md", "slots": {"insp": "exec:cat"}, "inputs": {"subject": "nope"}}`), nil); !strings.Contains(e, `subject: no run "nope"`) {
		t.Errorf("an unknown run: %q, want the tool's error naming it", e)
	}
}
