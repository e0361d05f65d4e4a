package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/receipt"
)

// hangProject is two gateways, slow and quick, and the programs that
// render them: slow's writes its pid to dir/pid and never answers.
func hangProject(t *testing.T, dir string) (project, quick string) {
	t.Helper()
	project = filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"slow", "quick"} {
		text := "---\nname: " + n + "\nkind: gateway\n---\n\n# " + n + "\n\n### Maintains\n\n- `headline`: the latest headline\n"
		if err := os.WriteFile(filepath.Join(project, n+".prose.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	quick = filepath.Join(dir, "quick.sh")
	files := map[string]string{
		quick:                         "#!/bin/sh\ncat >/dev/null\necho '{\"headline\": \"q\"}'\n",
		filepath.Join(dir, "hang.sh"): "#!/bin/sh\necho $$ > " + filepath.Join(dir, "pid") + "\nexec sleep 100000\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return project, quick
}

// A render that never answers holds prose serve no longer than
// --render-timeout: its drain fails it, naming the node, and the events
// taken meanwhile for another node are drained after it.
func TestServeHungRenderTimesOut(t *testing.T) {
	s := newServed(t)
	dir := t.TempDir()
	s.project, s.bus = hangProject(t, dir)
	s.start("--slot", "slow=exec:"+filepath.Join(dir, "hang.sh"), "--render-timeout", "300ms")
	defer s.stop()
	trigger := func(node string) int {
		t.Helper()
		code, b := s.do("POST", "/trigger/"+node, "", []byte(`{"headline": "x"}`))
		var a ack
		if code != 202 || json.Unmarshal(b, &a) != nil {
			t.Fatalf("POST /trigger/%s: %d %s", node, code, b)
		}
		return a.Drain
	}
	slow := trigger("slow")
	quick := trigger("quick")
	// The two events may be drained apart or, when the second arrives
	// before the first drain starts, together: either way quick renders
	// and slow fails, each once.
	status := func(o *serve.Outcome, node string) (got []receipt.Status) {
		for _, r := range o.Receipts {
			if r.Node == node {
				got = append(got, r.Status)
			}
		}
		return got
	}
	if o := s.outcome(quick); !slices.Equal(status(o, "quick"), []receipt.Status{receipt.Rendered}) {
		t.Errorf("quick's drain: %+v", o)
	}
	if o := s.outcome(slow); !slices.Equal(status(o, "slow"), []receipt.Status{receipt.Failed}) {
		t.Fatalf("slow's drain: %+v", o)
	}
	code, b := s.do("GET", "/status", "", nil)
	if code != 200 || !strings.Contains(string(b), "slow.prose.md:2:7: the render of slow did not finish within the render timeout of 300ms") {
		t.Errorf("status: %d %s", code, b)
	}
}

// SIGTERM stops a prose serve whose render never answers (no bound): it
// exits 0, and the render's program does not outlive it.
func TestServeStopsDuringHungRender(t *testing.T) {
	s := newServed(t)
	dir := t.TempDir()
	s.project, s.bus = hangProject(t, dir)
	s.start("--slot", "slow=exec:"+filepath.Join(dir, "hang.sh"), "--render-timeout", "0")
	code, b := s.do("POST", "/trigger/slow", "", []byte(`{"headline": "x"}`))
	if code != 202 {
		t.Fatalf("POST /trigger/slow: %d %s", code, b)
	}
	var pid int
	for deadline := time.Now().Add(time.Minute); pid == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the render's program did not start within a minute")
		}
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	// It still takes events while the render hangs.
	if code, b := s.do("POST", "/trigger/quick", "", []byte(`{"headline": "y"}`)); code != 202 {
		t.Errorf("POST /trigger/quick during the hung render: %d %s", code, b)
	}
	s.stop()
	if alive(pid) {
		t.Errorf("the render's program (pid %d) outlived prose serve", pid)
	}
}
