package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/store"
)

// prose run DIR of two Execution nodes opens each spec file once (the
// kernel's count, as strace would show it: the checks before the drain,
// the graph and the renders' runs share one reading), and each render's
// journal, named in its receipt, is listed by prose runs and replayed by
// prose replay.
func TestWorldDrainOpensEachSpecOnce(t *testing.T) {
	src := filepath.Join(testenv.MustRoot(t), "testdata", "world", "onegraph")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(t.TempDir(), "world")
	opens := testenv.WatchOpens(t, dir)
	code, stdout, stderr := runMain(t, "run", dir, "--state", state, "--format", "json", "--input", `source.batch=["a","b","a"]`)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	got := opens()
	for _, e := range ents {
		if got[e.Name()] != 1 {
			t.Errorf("%s opened %d times by prose run DIR, want once (all: %v)", e.Name(), got[e.Name()], got)
		}
	}
	runs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r struct{ Node, Run string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("receipt %q: %v", line, err)
		}
		runs[r.Node] = r.Run
	}
	for _, node := range []string{"source", "board"} {
		if runs[node] != "drain-1" {
			t.Fatalf("%s's receipt names the run %q, want drain-1 (receipts: %v)", node, runs[node], runs)
		}
		runDir := store.RunsDir(state, node)
		code, stdout, stderr := runMain(t, "runs", "--run-dir", runDir)
		if code != 0 || !strings.Contains(stdout, "drain-1") {
			t.Errorf("prose runs of %s: exit %d\n%s%s", node, code, stdout, stderr)
		}
		code, stdout, stderr = runMain(t, "replay", "drain-1", "--run-dir", runDir)
		if code != 0 || !strings.Contains(stdout, `"a"`) || strings.Contains(stderr, "warning") {
			t.Errorf("prose replay of %s's render: exit %d\n%s%s", node, code, stdout, stderr)
		}
	}
}
