package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

// Renders are ordinary calls for the journal: a replay of a function run
// answers them from the journal and asks the model nothing.
func TestContractRunReplays(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "f.prose.md")
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: a topic\n\n### Returns\n\n- `line`: one line\n\n" +
		"### Execution\n\n```prose\nlet idea = call thinker\n  topic: topic\nreturn call phraser\n  idea: idea\n```\n\n" +
		"## thinker\n\n### Parameters\n\n- `topic`: a topic\n\n### Returns\n\n- `idea`: an idea\n\n" +
		"## phraser\n\n### Parameters\n\n- `idea`: an idea\n\n### Returns\n\n- `line`: a line\n"
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"idea": "tides"}`, Match: `\"thinker\"`},
		llmtest.Reply{Content: `{"line": "the sea keeps time"}`, Match: `\"phraser\"`})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("PROSE_MODEL", "test-model")
	runs := filepath.Join(dir, "runs")
	code, out, errOut := smokeMain(t, "run", spec, "--run-dir", runs, "--input", "topic=sea")
	if code != 0 || !strings.Contains(out, `"line": "the sea keeps time"`) {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	if srv.Count() != 2 {
		t.Fatalf("%d model requests, want 2", srv.Count())
	}
	ids, _ := os.ReadDir(runs)
	if len(ids) != 1 {
		t.Fatalf("%d journaled runs", len(ids))
	}
	code, out2, errOut := smokeMain(t, "replay", ids[0].Name(), "--run-dir", runs)
	if code != 0 || out2 != out {
		t.Errorf("replay: exit %d, stdout %q, want %q\n%s", code, out2, out, errOut)
	}
	if srv.Count() != 2 {
		t.Errorf("the replay asked the model %d more times", srv.Count()-2)
	}
}
