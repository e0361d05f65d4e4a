package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// U12 through the CLI: regenerating a world model from the same events
// gives byte-identical receipt ledgers, though each run's renders take
// their own time (durations are kept beside the ledger).
func TestWorldLedgerRegeneratesByteIdentical(t *testing.T) {
	project := testenv.Corpus015(t, "examples/basic-unit-suite")
	dir := t.TempDir()
	bus := filepath.Join(dir, "bus")
	if out, err := exec.Command("go", "build", "-o", bus, filepath.Join(testenv.MustRoot(t), "testdata", "world", "bus")).CombinedOutput(); err != nil {
		t.Fatalf("building bus: %v\n%s", err, out)
	}
	events := []string{
		`{"id":"e1","kind":"click","value":1}`,
		`{"id":"e1","kind":"click","value":1}`,
		`{"id":"m1","kind":"click","value":4,"material":false}`,
		`{"id":"e2","kind":"view","value":6}`,
	}
	states := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	for _, state := range states {
		for i, ev := range events {
			f := filepath.Join(dir, "ev.json")
			os.WriteFile(f, []byte(ev), 0o644)
			var out, errw bytes.Buffer
			args := []string{"run", project, "--state", state, "--slot", "*=exec:" + bus, "--event", "counter-events=@" + f}
			if i == len(events)-1 {
				args = append(args, "--tick", "count-trend")
			}
			if code := Main(args, strings.NewReader(""), &out, &errw); code != 0 {
				t.Fatalf("drain %d: exit %d\n%s%s", i+1, code, out.String(), errw.String())
			}
		}
	}
	ledgers, _ := filepath.Glob(filepath.Join(states[0], "*", "receipts.jsonl"))
	if len(ledgers) != 7 {
		t.Fatalf("%d ledgers", len(ledgers))
	}
	for _, a := range ledgers {
		rel, _ := filepath.Rel(states[0], a)
		x, _ := os.ReadFile(a)
		y, err := os.ReadFile(filepath.Join(states[1], rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs (%v):\n%s\n%s", rel, err, x, y)
		}
		if bytes.Contains(x, []byte("duration_ms")) {
			t.Errorf("%s holds a duration", rel)
		}
	}
	var out, errw bytes.Buffer
	if code := Main([]string{"receipts", "verify", "--state", states[1]}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Errorf("verify: exit %d\n%s%s", code, out.String(), errw.String())
	}
}
