package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/receipt"
)

// connectProject copies the basic-unit-suite into a fresh project with
// conf as its prose.serve.yaml.
func connectProject(t *testing.T, conf string) string {
	t.Helper()
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(testenv.Corpus015(t, "examples/basic-unit-suite/src"), "*.prose.md"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "inbox"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "prose.serve.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// prose serve runs the file connector of prose.serve.yaml: the events of
// a file dropped in the inbox are drained, an id seen before ends as a
// skipped gateway, and /status shows the connector.
func TestServeFileConnector(t *testing.T) {
	s := newServed(t)
	s.project = connectProject(t, "connectors:\n  counter-events:\n    file: inbox\n    id_field: id\n    every: 20ms\n")
	s.start()
	defer s.stop()
	os.WriteFile(filepath.Join(s.project, "inbox", "a.json"), []byte(`[{"id":"e1","kind":"click","value":1},{"id":"e2","kind":"view","value":2}]`), 0o644)
	var st struct {
		Connectors map[string]struct{ Events, Duplicates int }
		QueueDepth int `json:"queue_depth"`
	}
	wait := func(events, dups int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			_, b := s.do("GET", "/status", "", nil)
			if json.Unmarshal(b, &st) == nil && st.Connectors["counter-events"].Events == events && st.Connectors["counter-events"].Duplicates == dups && st.QueueDepth == 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("connector status %+v, want %d events, %d duplicates, an empty queue", st, events, dups)
	}
	wait(2, 0)
	os.WriteFile(filepath.Join(s.project, "inbox", "b.json"), []byte(`{"id":"e1","kind":"click","value":7}`), 0o644)
	wait(2, 1)
	// Drained: the last gateway receipt is the duplicate's skip.
	deadline := time.Now().Add(time.Minute)
	var rs []*receipt.Receipt
	for time.Now().Before(deadline) {
		if rs = gatewayReceipts(t, s.state); len(rs) > 0 && rs[len(rs)-1].Status == receipt.Skipped {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	rendered := 0
	for _, r := range rs {
		if r.Status == receipt.Rendered {
			rendered++
		}
	}
	if len(rs) == 0 || rs[len(rs)-1].Status != receipt.Skipped || rendered == 0 || rendered > 2 {
		t.Errorf("gateway receipts: %d rendered, last %v", rendered, rs)
	}
}

// A prose.serve.yaml that names no gateway is refused before serve
// listens, at its line.
func TestServeConnectorConfigRefused(t *testing.T) {
	s := newServed(t)
	project := connectProject(t, "connectors:\n  count-summary:\n    file: inbox\n")
	out, err := exec.Command(s.prose, "serve", project, "--state", s.state, "--slot", "*=exec:"+s.bus, "--http", "127.0.0.1:0").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v\n%s", err, out)
	}
	if want := "prose.serve.yaml:2:3: error: connector \"count-summary\": no gateway has that id (gateways: counter-events)"; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %s:\n%s", want, out)
	}
}
