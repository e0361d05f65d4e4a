package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
)

// --trace of a run that renders a function's node has a model record for
// the render (its node, prompt, reply and tokens), and the run's totals
// count the render's tokens as its model usage does.
func TestTraceHasRenderModelRecords(t *testing.T) {
	root := testenv.MustRoot(t)
	model := llmtest.NewServer(t, llmtest.Reply{Content: `{"headline": "Faster search"}`, TokensIn: 13, TokensOut: 4})
	t.Setenv("OPENAI_BASE_URL", model.URL)
	t.Setenv("OPENAI_API_KEY", "test-key-abcdefgh")
	t.Setenv("PROSE_MODEL", "fake")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	code, stdout, stderr := runMain(t, "run", "--no-journal", "-q", filepath.Join(root, "testdata/run/release-note.prose.md"),
		"--input", "changes=faster search; new export", "--input", "audience=users",
		"--slot", "summarizer=exec:"+filepath.Join(root, "testdata/run/summarize.sh"), "--trace", trace)
	if code != 0 || !strings.Contains(stdout, "Faster search") {
		t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var models int
	var final map[string]json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec["t"] {
		case "model":
			models++
			if rec["slot"] != "headline-writer" || rec["reply"] != `{"headline": "Faster search"}` || rec["tokens_in"] != 13.0 || rec["tokens_out"] != 4.0 ||
				!strings.Contains(rec["prompt"].(string), "faster search") {
				t.Errorf("model record: %v", rec)
			}
		case "final":
			_ = json.Unmarshal([]byte(line), &final)
		}
	}
	if models != 1 {
		t.Errorf("%d model records, want 1 for the render:\n%s", models, data)
	}
	var totals, usage struct {
		In  int `json:"tokens_in"`
		Out int `json:"tokens_out"`
	}
	if err := json.Unmarshal(final["totals"], &totals); err != nil {
		t.Fatalf("final record %s: %v", final["totals"], err)
	}
	if err := json.Unmarshal(final["model_usage"], &usage); err != nil {
		t.Fatalf("final record %s: %v", final["model_usage"], err)
	}
	if totals.In != 13 || totals != usage {
		t.Errorf("totals %+v, model usage %+v: want both 13 in, 4 out", totals, usage)
	}
}
