//go:build unix

package reconcile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// crashEnv, in the environment of this test binary started by
// TestDrainKilled, names the state directory to drain and the write step
// to be killed at ("DIR|STEP"; step 0 kills nowhere and prints how many
// steps the drain took).
const crashEnv = "PROSE_TEST_DRAIN_CRASH"

// crashProject is a diamond: a gateway g, a and b reading it, c reading
// a and b.
var crashProject = map[string]string{
	"g": "---\nname: g\nkind: gateway\n---\n\n# g\n\n### Maintains\n\n- `v`: the sum of the events\n",
	"a": "---\nname: a\nkind: responsibility\n---\n\n# a\n\n### Requires\n\n- `g`: the gateway's truth\n\n### Maintains\n\n- `v`: one more than g\n",
	"b": "---\nname: b\nkind: responsibility\n---\n\n# b\n\n### Requires\n\n- `g`: the gateway's truth\n\n### Maintains\n\n- `v`: one more than g\n",
	"c": "---\nname: c\nkind: responsibility\n---\n\n# c\n\n### Requires\n\n- `a`: a's truth\n- `b`: b's truth\n\n### Maintains\n\n- `v`: one more than a and b\n",
}

// sumRender: a gateway's v is its prior v plus its events' n; another
// node's v is one more than the sum of its inputs' v.
type sumRender struct{}

func (sumRender) Render(_ context.Context, r *reconcile.Request) (*reconcile.Answer, error) {
	v := 1.0
	if r.Node.Kind == "gateway" {
		v = 0
		if p, ok := r.Prior.(map[string]any); ok {
			v = num(p["v"])
		}
		for _, e := range r.Events {
			v += num(e.(map[string]any)["n"])
		}
	}
	for _, in := range r.Inputs {
		if m, ok := in.(map[string]any); ok {
			v += num(m["v"])
		}
	}
	return &reconcile.Answer{Truth: map[string]any{"v": v}}, nil
}

func num(v any) float64 {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}

func crashOptions(g *graph.Graph, st *store.Store, event int) reconcile.Options {
	o := reconcile.Options{Graph: g, Store: st, MaxParallel: 2,
		Binding:  func(*graph.Node) string { return "test:sum" },
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return sumRender{}, nil },
	}
	if event > 0 {
		o.Events = map[string][]any{"g": {map[string]any{"id": fmt.Sprint("e", event), "n": event * 10}}}
	}
	return o
}

// lockedDrain drains dir's store once, holding its lock, as prose run DIR
// does; with hold, as prose serve does (the store trusts what it checked).
func lockedDrain(t testing.TB, g *graph.Graph, dir string, event int, hold bool, onWrite func(string)) *reconcile.Result {
	t.Helper()
	unlock, err := store.Lock(context.Background(), dir, store.LockOptions{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if hold {
		st.HoldLock()
	}
	st.OnWrite = onWrite
	res, err := reconcile.Drain(context.Background(), crashOptions(g, st, event))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// truths reads every node's published truth.
func truths(t *testing.T, g *graph.Graph, dir string) string {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range g.Nodes {
		v, _, err := st.Published(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		out = append(out, n.ID+"="+string(b))
	}
	return strings.Join(out, " ")
}

func verified(t *testing.T, dir string) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := st.Verify(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Errorf("verify: %s", p)
	}
}

// crashChild is the child's side: one drain of event 2, killed (SIGKILL,
// as kill -9) before its STEP-th write step.
func crashChild(t *testing.T, spec string) {
	dir, k, _ := strings.Cut(spec, "|")
	step, _ := strconv.Atoi(k)
	g := loadCrashProject(t, filepath.Dir(filepath.Dir(filepath.Dir(dir))))
	steps := 0
	lockedDrain(t, g, dir, 2, false, func(string) {
		steps++
		if steps == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	})
	fmt.Printf("steps %d\n", steps)
}

func loadCrashProject(t testing.TB, dir string) *graph.Graph {
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	return g
}

// TestDrainKilled kills a drain (SIGKILL, in a child process) at 20
// points chosen at random among the write steps it takes (by count), then
// drains again with the same event, as a server re-runs a drain it did
// not finish: the truths are those of an uninterrupted run, prose
// receipts verify finds nothing, and a drain after it finds nothing
// stale (the drain index agrees with the ledgers).
func TestDrainKilled(t *testing.T) {
	if spec := os.Getenv(crashEnv); spec != "" {
		crashChild(t, spec)
		return
	}
	project := t.TempDir()
	for id, src := range crashProject {
		if err := os.WriteFile(filepath.Join(project, id+".prose.md"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := loadCrashProject(t, project)
	// The uninterrupted run: event 1, then event 2.
	primed := filepath.Join(project, ".prose", "primed", "world")
	lockedDrain(t, g, primed, 1, false, nil)
	ref := filepath.Join(project, ".prose", "ref", "world")
	copyDir(t, primed, ref)
	lockedDrain(t, g, ref, 2, false, nil)
	want := truths(t, g, ref)
	verified(t, ref)

	steps := crashRun(t, project, primed, 0)
	if steps < 20 {
		t.Fatalf("the drain took %d write steps; want at least 20 to choose from", steps)
	}
	rnd := rand.New(rand.NewPCG(31, 28))
	for _, k := range rnd.Perm(steps)[:20] {
		k++
		t.Run(fmt.Sprint("step", k), func(t *testing.T) {
			dir := filepath.Join(project, ".prose", fmt.Sprint("k", k), "world")
			crashRun(t, project, primed, k)
			// Copied back, as the crash left it.
			res := lockedDrain(t, g, dir, 2, true, nil)
			if got := truths(t, g, dir); got != want {
				t.Errorf("killed at step %d, then drained: %s\nuninterrupted: %s (the drain after the kill: %d receipts)", k, got, want, len(res.Receipts))
			}
			verified(t, dir)
			if res := lockedDrain(t, g, dir, 0, false, nil); len(res.Receipts) != 0 {
				t.Errorf("a drain after the repair left %d receipts, want none: the index and the ledgers disagree", len(res.Receipts))
			}
		})
	}
}

// crashRun copies primed to the trial's state directory and drains it in
// a child killed at write step k (0: not killed); it returns the steps
// the child counted when it was not killed.
func crashRun(t *testing.T, project, primed string, k int) int {
	t.Helper()
	dir := filepath.Join(project, ".prose", fmt.Sprint("k", k), "world")
	copyDir(t, primed, dir)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDrainKilled$", "-test.count", "1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir+"|"+strconv.Itoa(k))
	out, err := cmd.Output()
	if k == 0 {
		if err != nil {
			t.Fatalf("the drain in a child: %v\n%s", err, out)
		}
		var n int
		for _, line := range strings.Split(string(out), "\n") {
			if _, err := fmt.Sscanf(line, "steps %d", &n); err == nil {
				return n
			}
		}
		t.Fatalf("the child printed no step count:\n%s", out)
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was to be killed at step %d: %v\n%s", k, err, out)
	}
	return 0
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestKeptDrainsAsAFullOne: drains that keep what they read (Kept, as
// prose serve) leave the receipts and truths that drains reading every
// node leave, through events, a tick, a quiet drain and a failed render.
func TestKeptDrainsAsAFullOne(t *testing.T) {
	project := t.TempDir()
	for id, src := range crashProject {
		if err := os.WriteFile(filepath.Join(project, id+".prose.md"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := loadCrashProject(t, project)
	run := func(kept *reconcile.Kept, dir string) string {
		unlock, err := store.Lock(context.Background(), dir, store.LockOptions{Command: "test"})
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		st, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		st.HoldLock()
		var log []string
		fail := false
		for i, step := range []string{"e1", "quiet", "e2", "tick c", "fail a", "e3", "quiet", "heal", "quiet"} {
			o := crashOptions(g, st, 0)
			o.Kept = kept
			o.Renderer = func(n *graph.Node) (reconcile.Renderer, error) {
				if fail && n.ID == "a" {
					return failRender{}, nil
				}
				return sumRender{}, nil
			}
			switch step {
			case "e1", "e2", "e3":
				o.Events = map[string][]any{"g": {map[string]any{"id": step, "n": i}}}
			case "tick c":
				o.Ticks = []string{"c"}
			case "fail a":
				fail = true
				o.Events = map[string][]any{"g": {map[string]any{"id": step, "n": 100}}}
			case "heal":
				fail = false
			}
			res, err := reconcile.Drain(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			var rs []string
			for _, r := range res.Receipts {
				rs = append(rs, r.Node+":"+string(r.Status))
			}
			log = append(log, fmt.Sprintf("%s drain %d: %s", step, res.Drain, strings.Join(rs, " ")))
		}
		return strings.Join(log, "\n") + "\n" + truths(t, g, dir)
	}
	want := run(nil, filepath.Join(project, ".prose", "full"))
	got := run(&reconcile.Kept{}, filepath.Join(project, ".prose", "kept"))
	if got != want {
		t.Errorf("drains with Kept:\n%s\nreading every node:\n%s", got, want)
	}
	if !strings.Contains(want, "heal drain") || !strings.Contains(want, "a:failed") {
		t.Errorf("the sequence did not fail and heal a render:\n%s", want)
	}
}

type failRender struct{}

func (failRender) Render(context.Context, *reconcile.Request) (*reconcile.Answer, error) {
	return nil, fmt.Errorf("down")
}
