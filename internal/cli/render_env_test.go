package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

const renderEnvSpec = `---
name: sum
kind: function
---

# Sum

Sums things.

### Parameters

- ` + "`text`" + `: the text

### Returns

- ` + "`summary`" + `: the summary

### Environment

- ` + "`SUM_STYLE`" + `: the house style
- ` + "`SUM_TOKEN`" + `: the service's key

### Runtime

- ` + "`model`" + `: sonnet
`

// A render's ### Environment variables reach its prompt by name and
// description, as set by the host, their values never; its ### Runtime model hint is a
// warning saying how to apply it, silent once a model is bound; and the
// errors of a file-level render point at its name: with one column.
func TestRenderEnvironmentRuntimeAndPosition(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sum.prose.md")
	if err := os.WriteFile(file, []byte(renderEnvSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "sk-live0123456789abcdefXYZ"
	t.Setenv("SUM_STYLE", "terse and plain")
	t.Setenv("SUM_TOKEN", token)
	model := llmtest.NewServer(t, llmtest.Reply{Content: `{"summary": "s"}`, Times: -1})
	t.Setenv("OPENAI_BASE_URL", model.URL)
	t.Setenv("OPENAI_API_KEY", "test-key-abcdefgh")
	t.Setenv("PROSE_MODEL", "fake")

	code, out, stderr := runMain(t, "run", "--no-journal", file, "--input", "text=x")
	if code != 0 || !strings.Contains(out, `"summary": "s"`) {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, stderr)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "SUM_STYLE: the house style; set by the host") || !strings.Contains(body, "SUM_TOKEN: the service's key; set by the host") ||
		strings.Contains(body, token) || strings.Contains(body, "terse and plain") {
		t.Errorf("the render's prompt does not state its environment as it should:\n%s", body)
	}
	if !strings.Contains(stderr, `sum.prose.md:25:1: warning: ### Runtime names the model "sonnet" for sum`) || !strings.Contains(stderr, "--slot sum=llm:sonnet") {
		t.Errorf("no warning for the ### Runtime hint:\n%s", stderr)
	}
	if _, _, stderr := runMain(t, "run", "--no-journal", file, "--input", "text=x", "--slot", "sum=llm:sonnet"); strings.Contains(stderr, "runtime-hint") {
		t.Errorf("the hint is reported although a model is bound:\n%s", stderr)
	}

	// A failing file-level render names name: (line 2, column 7), as the
	// messages before the run do.
	t.Setenv("PROSE_MODEL", "")
	_, _, before := runMain(t, "run", "--no-journal", file, "--input", "text=x")
	_, _, failed := runMain(t, "run", "--no-journal", file, "--input", "text=x", "--slot", "sum=exec:exit 3")
	if !strings.Contains(before, "sum.prose.md:2:7: sum") || !strings.Contains(failed, "sum.prose.md:2:7: call 'sum' failed") {
		t.Errorf("positions differ:\nbefore the run: %s\nfailed call: %s", before, failed)
	}
}
