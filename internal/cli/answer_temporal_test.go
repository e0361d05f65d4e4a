//go:build temporal

package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Against a real server: a run on Temporal waits at its gates until
// prose answer --engine temporal signals the answers, then prose result
// prints what a local run prints.
func TestE2ETemporalAnswer(t *testing.T) {
	ctx, _ := temporalWorker(t, "prose-cli-answer-")
	t.Chdir(filepath.Join("..", ".."))

	code, out, stderr := runMain(t, "run", "--engine", "temporal", "--detach", "testdata/gates/release.prose.md", "--slot", "shipper=exec:cat")
	id := strings.TrimSpace(out)
	if code != 0 || id == "" {
		t.Fatalf("detached run: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// the listing shows each gate once the run waits at it
	waitListed := func(want string) {
		t.Helper()
		for {
			if _, out, _ := runMain(t, "answer", "--engine", "temporal", id); strings.Contains(out, want) {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("the run never waited at %q", want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitListed("ask_user L19: Which release should ship?")
	if code, _, stderr := runMain(t, "answer", "--engine", "temporal", id, "--value", "v1.2"); code != 0 || !strings.Contains(stderr, "answered ask_user L19") {
		t.Fatalf("answer: exit %d, stderr %q", code, stderr)
	}
	waitListed(`gate L20: {"release":"v1.2","options":["ship","hold"]}`)
	if code, _, stderr := runMain(t, "answer", "--engine", "temporal", id, "L20", "--json", `{"choice":"ship"}`); code != 0 {
		t.Fatalf("answer: exit %d, stderr %q", code, stderr)
	}
	code, out, stderr = runMain(t, "result", id)
	if code != 0 || out != "{\n  \"release\": \"v1.2\",\n  \"choice\": \"ship\"\n}\n" {
		t.Fatalf("result: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
