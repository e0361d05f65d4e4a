package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// TestMissingKeyRefusedBeforeRun: a model on OpenAI's own API without a
// key is refused before anything runs (exit 2), like a missing model.
func TestMissingKeyRefusedBeforeRun(t *testing.T) {
	root := testenv.MustRoot(t)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("PROSE_MODEL", "gpt-x")
	spec := filepath.Join(root, "testdata/spec/ratchet.prose.md")
	code, out, errs := runMain(t, "run", spec, "--slot", "advancer=exec:echo never", "--slot", "certifier=llm",
		"--input", "task_brief=x", "--run-dir", t.TempDir())
	if code != 2 || out != "" {
		t.Fatalf("exit %d, stdout %q, want 2 and nothing; stderr:\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "no API key for https://api.openai.com/v1: set OPENAI_API_KEY") {
		t.Errorf("stderr does not say what to set:\n%s", errs)
	}
	if strings.Contains(errs, "attempt") {
		t.Errorf("something ran:\n%s", errs)
	}
}
