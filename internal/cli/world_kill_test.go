package cli

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// worldSteps are the drains of the kill test: the events each delivers to
// the basic-unit-suite's gateway.
var worldSteps = []string{
	`{"id":"e1","kind":"click","value":1}`,
	`{"id":"e2","kind":"view","value":2}`,
	`{"id":"m1","kind":"click","value":4,"material":false}`,
	`{"id":"e3","kind":"click","value":3}`,
}

type worldKill struct {
	t            *testing.T
	prose, bus   string
	project, dir string
}

func (w *worldKill) cmd(state string, step int, env ...string) *exec.Cmd {
	ev := filepath.Join(w.dir, "event-"+strconv.Itoa(step)+".json")
	os.WriteFile(ev, []byte(worldSteps[step]), 0o644)
	c := exec.Command(w.prose, "run", w.project, "--state", state, "--slot", "*=exec:"+w.bus, "--event", "counter-events=@"+ev)
	c.Env = append(os.Environ(), env...)
	return c
}

func (w *worldKill) run(state string, step int) {
	w.t.Helper()
	if out, err := w.cmd(state, step).CombinedOutput(); err != nil {
		w.t.Fatalf("step %d: %v\n%s", step, err, out)
	}
}

func ledgerLines(state string) int {
	n := 0
	files, _ := filepath.Glob(filepath.Join(state, "*", "receipts.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		n += bytes.Count(b, []byte("\n"))
	}
	return n
}

// killAt runs step with a kill -9: during the render numbered at (mode
// "render"), or as soon as the ledgers hold at receipts (mode "receipts").
// It reports whether the kill happened before the drain ended.
func (w *worldKill) killAt(state string, step int, mode string, at int) bool {
	w.t.Helper()
	hang := w.t.TempDir()
	c := w.cmd(state, step, "BUS_HANG="+hang, "BUS_HANG_AT="+strconv.Itoa(at))
	if mode == "receipts" {
		c = w.cmd(state, step)
	}
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for {
		select {
		case <-done:
			return false // the drain ended first
		default:
		}
		if mode == "render" {
			if b, err := os.ReadFile(filepath.Join(hang, "started-"+strconv.Itoa(at))); err == nil && len(b) > 0 {
				c.Process.Signal(syscall.SIGKILL)
				<-done
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				return true
			}
		} else if ledgerLines(state) >= at {
			c.Process.Signal(syscall.SIGKILL)
			<-done
			return true
		}
		time.Sleep(time.Millisecond)
	}
}

// Kill -9 at 20 points of a drain chosen by a seeded RNG, then prose run
// again: the receipts verify, no committed version is lost, nothing whose
// key did not move re-renders, and the final truths are an uninterrupted
// run's.
func TestWorldKillAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds prose and runs it 100 times")
	}
	project := testenv.Corpus015(t, "examples/basic-unit-suite")
	dir := t.TempDir()
	bus := filepath.Join(dir, "bus")
	if out, err := exec.Command("go", "build", "-o", bus, filepath.Join(testenv.MustRoot(t), "testdata", "world", "bus")).CombinedOutput(); err != nil {
		t.Fatalf("building bus: %v\n%s", err, out)
	}
	w := &worldKill{t: t, prose: buildProse(t, dir), bus: bus, project: project, dir: dir}

	ref := filepath.Join(dir, "ref")
	for i := range worldSteps {
		w.run(ref, i)
	}
	want := truths(t, ref)

	rng := rand.New(rand.NewSource(19))
	killed := 0
	for trial := 0; trial < 20; trial++ {
		state := filepath.Join(dir, "trial-"+strconv.Itoa(trial))
		step := rng.Intn(len(worldSteps))
		mode := []string{"render", "receipts"}[rng.Intn(2)]
		for i := 0; i < step; i++ {
			w.run(state, i)
		}
		base := ledgerLines(state)
		at := 1 + rng.Intn(7)
		if mode == "receipts" {
			at += base
		}
		before := versions(t, state)
		if w.killAt(state, step, mode, at) {
			killed++
		}
		// What was committed before the kill is still there.
		for _, v := range before {
			if _, err := os.Stat(v); err != nil {
				t.Errorf("trial %d: version %s lost", trial, v)
			}
		}
		for i := step; i < len(worldSteps); i++ {
			w.run(state, i)
		}
		st, err := store.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		if ps, err := st.Verify(nil, nil); err != nil || len(ps) > 0 {
			t.Errorf("trial %d (step %d, %s %d): verify: %v %v", trial, step, mode, at, err, ps)
		}
		noUnmovedRerender(t, st, trial)
		if got := truths(t, state); !equalMaps(got, want) {
			t.Errorf("trial %d (step %d, %s %d): final truths differ from an uninterrupted run's", trial, step, mode, at)
		}
	}
	if killed < 10 {
		t.Errorf("only %d of 20 kills landed inside a drain", killed)
	}
}

func truths(t *testing.T, state string) map[string]string {
	m := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(state, "*", "truth.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(filepath.Dir(f))] = string(b)
	}
	if len(m) != 7 {
		t.Fatalf("%s: %d truths", state, len(m))
	}
	return m
}

func versions(t *testing.T, state string) []string {
	files, _ := filepath.Glob(filepath.Join(state, "*", "versions", "*.json"))
	return files
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// noUnmovedRerender: every rendered receipt's memo key differs from the
// node's last non-failed receipt before it.
func noUnmovedRerender(t *testing.T, st *store.Store, trial int) {
	nodes, _ := st.Nodes()
	for _, n := range nodes {
		rs, err := st.Ledger(n)
		if err != nil {
			t.Fatal(err)
		}
		var lastOK *receipt.Receipt
		for _, r := range rs {
			if r.Status == receipt.Rendered && lastOK != nil && lastOK.Memo == r.Memo {
				t.Errorf("trial %d: %s re-rendered with an unmoved key (drain %d)", trial, n, r.Drain)
			}
			if r.Status != receipt.Failed {
				lastOK = r
			}
		}
	}
}
