//go:build temporal

package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/proselang/prose/internal/temporalport"
	temporallinked "github.com/proselang/prose/internal/temporalport/linked"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/serve/temporalserve"
	"github.com/proselang/prose/temporal"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// servedTemporal prepares s to serve on the Temporal test server: a
// task queue of its own, a payload key of its own, and the workflow
// terminated with the test.
func servedTemporal(t *testing.T, s *served) temporal.Conn {
	t.Helper()
	addr := os.Getenv("PROSE_TEMPORAL_TEST_ADDRESS")
	if addr == "" {
		t.Skip("PROSE_TEMPORAL_TEST_ADDRESS is not set: no Temporal server to test against (.ci/run starts one)")
	}
	conn := temporal.Conn{Address: addr, Namespace: os.Getenv("PROSE_TEMPORAL_TEST_NAMESPACE"),
		TaskQueue: "prose-serve-" + time.Now().Format("150405.000000000")}
	t.Setenv(temporal.KeyFileEnv, filepath.Join(t.TempDir(), "temporal.key"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if cl, err := temporal.Dial(ctx, conn); err == nil {
			cl.TerminateWorkflow(ctx, temporalserve.WorkflowID(s.state), "", "test over")
			cl.Close()
		}
	})
	return conn
}

func (s *served) temporalArgs(conn temporal.Conn) []string {
	return []string{"--temporal-address", conn.Address, "--namespace", conn.Namespace, "--task-queue", conn.TaskQueue}
}

// worker starts prose worker on conn; each render it runs writes a file
// in counts (bus's BUS_HANG), and its hangAt-th render (0: none) hangs.
func (s *served) worker(conn temporal.Conn, counts string, hangAt int) *exec.Cmd {
	s.t.Helper()
	c := exec.Command(s.prose, append([]string{"worker"}, s.temporalArgs(conn)...)...)
	c.Env = append(os.Environ(), "BUS_HANG="+counts, "BUS_HANG_AT="+strconv.Itoa(hangAt))
	log, err := os.Create(filepath.Join(s.t.TempDir(), "worker.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	c.Stdout, c.Stderr = log, log
	if err := c.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		c.Process.Signal(syscall.SIGTERM)
		c.Wait()
		log.Close()
		if s.t.Failed() {
			b, _ := os.ReadFile(log.Name())
			s.t.Logf("worker %d:\n%s", c.Process.Pid, b)
		}
	})
	return c
}

// The events of TestServeEvents through prose serve --engine temporal,
// with the worker killed (kill -9) while a render of a drain hangs and
// another started: every acknowledged event is delivered in one drain
// and folded into one rendered gateway receipt, duplicates skip,
// malformed events are 400s, the receipts verify, and no render whose
// commit was recorded ran again: the renders started are the rendered
// receipts and the one the kill cut off.
func TestE2ETemporalServeKilledWorker(t *testing.T) {
	s := newServed(t)
	conn := servedTemporal(t, s)
	counts := t.TempDir()
	const hangAt = 30
	first := s.worker(conn, counts, hangAt)
	// One render at a time: at the kill, the hanging one is the only
	// render in flight.
	s.start(append([]string{"--engine", "temporal", "--max-parallel", "1"}, s.temporalArgs(conn)...)...)
	defer s.stop()

	killed := make(chan struct{})
	go func() {
		defer close(killed)
		hung := filepath.Join(counts, "started-"+strconv.Itoa(hangAt))
		for {
			if _, err := os.Stat(hung); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		first.Process.Signal(syscall.SIGKILL)
		s.worker(conn, counts, 0)
	}()
	serveEvents(t, s)
	select {
	case <-killed:
	default:
		t.Fatalf("the drains ended before render %d: nothing was killed", hangAt)
	}

	st, err := store.Open(s.state)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := st.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	rendered := 0
	for _, id := range ids {
		rs, err := st.Ledger(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Status != receipt.Skipped {
				rendered++
			}
		}
	}
	started, _ := filepath.Glob(filepath.Join(counts, "started-*"))
	if len(started) != rendered+1 {
		t.Errorf("%d renders started for %d rendered receipts; want one more (the render the kill cut off), no render of a recorded commit again", len(started), rendered)
	}
}

// kill -9 of prose serve --engine temporal while events arrive and the
// workflow drains them, then a restart (which joins the same workflow):
// every event answered 202 is in exactly one drain and one rendered
// gateway receipt, and the receipts verify.
func TestE2ETemporalServeKilledServer(t *testing.T) {
	s := newServed(t)
	conn := servedTemporal(t, s)
	s.worker(conn, t.TempDir(), 0)
	serveKill(t, s, 2*time.Second, append([]string{"--engine", "temporal"}, s.temporalArgs(conn)...)...)
}

// A serve workflow whose history limit is small continues as new over
// and over while events arrive from 4 senders at once, on a real server:
// every acknowledged event is in exactly one drain and one rendered
// gateway receipt, drains of earlier runs still answer, and an event
// sent again after the workflow continued is known as a duplicate.
func TestE2ETemporalServeContinuesAsNew(t *testing.T) {
	s := newServed(t)
	conn := servedTemporal(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := temporal.Dial(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	w := temporal.NewWorker(cl, conn, &temporal.Activities{}, temporal.WorkerOptions{})
	temporalserve.Register(w, &temporalserve.Activities{Open: temporallinked.Open(func(wd temporalport.World) (*temporalport.Project, error) {
		return openServed(wd, &runOptions{})
	})})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	world := temporalserve.World{Project: s.project, State: s.state, Slots: []string{"*=exec:" + s.bus}, MaxHistory: 150}
	id, err := temporalserve.Start(ctx, cl, conn.TaskQueue, world)
	if err != nil {
		t.Fatal(err)
	}
	firstRun := runID(ctx, t, cl, id)
	g, _, err := graph.Load(s.project)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(s.state)
	if err != nil {
		t.Fatal(err)
	}
	f := temporalserve.NewFront(cl, id, g, st)

	// Four waves of ten events, from 4 senders at once; between waves
	// the workflow is idle, its history long, and it continues as new.
	const n, senders, waves = 40, 4, 4
	events := make([]string, n)
	drains := make([]int, n)
	outcomes := map[int]*serve.Outcome{}
	runs := 0
	for wave := 0; wave < waves; wave++ {
		var wg sync.WaitGroup
		for k := 0; k < senders; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				for i := wave*n/waves + k; i < (wave+1)*n/waves; i += senders {
					events[i] = fmt.Sprintf(`{"id":"c%d","kind":"view","value":2}`, i)
					d, dup, err := f.Trigger("counter-events", []byte(events[i]))
					if err != nil || dup {
						t.Errorf("event %d: drain %d, duplicate %v, %v", i, d, dup, err)
					}
					drains[i] = d
				}
			}(k)
		}
		wg.Wait()
		for _, d := range drains[wave*n/waves : (wave+1)*n/waves] {
			for outcomes[d] == nil && ctx.Err() == nil {
				if state, o := f.Drain(d); state == "done" {
					outcomes[d] = o
				} else {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("wave %d: the drains did not finish", wave)
		}
	}
	// Each run ends once it is idle past 150 events of history; some 900
	// events make at least three runs.
	for runs = runChain(ctx, t, cl, id, firstRun); runs < 3 && ctx.Err() == nil; runs = runChain(ctx, t, cl, id, firstRun) {
		time.Sleep(50 * time.Millisecond)
	}
	if runs < 3 {
		t.Fatalf("the workflow ran %d times, want it to continue as new at least twice", runs)
	}
	for i := 0; i < n; i += 5 {
		if _, dup, err := f.Trigger("counter-events", []byte(events[i])); err != nil || !dup {
			t.Errorf("event %d sent again after continue-as-new: duplicate %v, %v", i, dup, err)
		}
	}
	drainOf := map[string]int{}
	for i, e := range events {
		drainOf[e] = drains[i]
	}
	deliveredOnce(t, s.state, outcomes, events, func(e string) int { return drainOf[e] })
	if out, err := exec.Command(s.prose, "receipts", "verify", "--state", s.state).CombinedOutput(); err != nil {
		t.Errorf("prose receipts verify: %v\n%s", err, out)
	}
	t.Logf("%d events in %d drains, %d runs of the workflow", n, len(outcomes), runs)
}

func runID(ctx context.Context, t *testing.T, cl client.Client, id string) string {
	t.Helper()
	d, err := cl.DescribeWorkflow(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	return d.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()
}

// runChain counts the runs of workflow id from run first, following each
// continue-as-new to the run it started.
func runChain(ctx context.Context, t *testing.T, cl client.Client, id, first string) int {
	t.Helper()
	n := 0
	for run := first; run != ""; n++ {
		it := cl.GetWorkflowHistory(ctx, id, run, false, 0)
		next := ""
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.GetNewExecutionRunId()
			}
		}
		run = next
	}
	return n
}

// The flags --engine temporal does not take, or needs, are usage errors
// (exit 2) before anything is dialled or bound.
func TestServeTemporalFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "cloud"}, "unknown --engine"},
		{[]string{"--engine", "temporal", "--model", "m"}, "give --model and --base-url to prose worker"},
		{[]string{"--engine", "temporal", "--temporal-address", ""}, "--temporal-address"},
	} {
		t.Setenv(temporal.EnvAddress, "")
		code, _, stderr := runMain(t, append([]string{"serve", t.TempDir()}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("serve %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// summaryEcho is a node added to basic-unit-suite: it reads the count
// summary (so it is the highest node but for those already above it),
// and bus renders it as the summary's total.
const summaryEcho = `---
name: summary-echo
kind: responsibility
---

# Summary Echo

### Requires

- ` + "`CountSummary`" + `: the structured summary. *(Maintained by ` + "`count-summary`" + `.)*

### Maintains

- ` + "`total`" + `: the summary's total
`

// truthTotal is the total of node's current truth (its own, or its
// structured part's).
func truthTotal(t *testing.T, st *store.Store, node string) (int, bool) {
	t.Helper()
	v, ok, err := st.CheckedTruth(node)
	if err != nil {
		t.Fatalf("%s's truth: %v", node, err)
	}
	m, _ := v.(map[string]any)
	if s, has := m["structured"].(map[string]any); has {
		m = s
	}
	f, isNum := m["total"].(float64)
	if !isNum {
		var n int
		_, err := fmt.Sscan(fmt.Sprint(m["total"]), &n)
		return n, ok && err == nil
	}
	return int(f), ok
}

// A project edited between two runs of prose serve --engine temporal
// (a node added that reads the count summary): the restarted server has
// the workflow, which kept running, take the new shape, so the added
// node renders, after its producer, holding its total, with no event
// for it. A worker started after the project was edited again, with the
// server not restarted, refuses the next drain, naming the fix, and
// commits nothing; the server restarted, drains go on.
func TestE2ETemporalServeEditedProject(t *testing.T) {
	s, file, _ := newServedCopy(t)
	conn := servedTemporal(t, s)
	first := s.worker(conn, t.TempDir(), 0)
	args := append([]string{"--engine", "temporal"}, s.temporalArgs(conn)...)
	s.start(args...)
	if _, a := s.post(`{"id":"e1","kind":"click","value":1}`); a.Drain == 0 || s.outcome(a.Drain).Error != "" {
		t.Fatalf("first drain: %+v", a)
	}
	s.stop()

	echo := filepath.Join(filepath.Dir(file), "summary-echo.prose.md")
	if err := os.WriteFile(echo, []byte(summaryEcho), 0o644); err != nil {
		t.Fatal(err)
	}
	s.start(args...)
	s.mu.Lock()
	said := strings.Join(s.lines, "\n")
	s.mu.Unlock()
	if !strings.Contains(said, "it takes the shape again") {
		t.Errorf("the restarted server did not say the workflow takes the shape again:\n%s", said)
	}
	_, a := s.post(`{"id":"e2","kind":"click","value":2}`)
	if o := s.outcome(a.Drain); o.Error != "" {
		t.Fatalf("the drain after the edit: %s", o.Error)
	}
	st, err := store.Open(s.state)
	if err != nil {
		t.Fatal(err)
	}
	summary, ok := truthTotal(t, st, "count-summary")
	if !ok || summary != 3 {
		t.Fatalf("count-summary's total: %d (%v), want 3", summary, ok)
	}
	if got, ok := truthTotal(t, st, "summary-echo"); !ok || got != summary {
		t.Fatalf("the added summary-echo: total %d (truth: %v), want the summary's %d", got, ok, summary)
	}

	// Edited again while the server runs: a worker that opens the project
	// now refuses the drain, which commits nothing.
	if err := os.Remove(echo); err != nil {
		t.Fatal(err)
	}
	first.Process.Signal(syscall.SIGTERM)
	first.Process.Wait()
	s.worker(conn, t.TempDir(), 0)
	ledgers := func() map[string]int {
		n := map[string]int{}
		st, err := store.Open(s.state) // as the workers left it
		if err != nil {
			t.Fatal(err)
		}
		ids, err := st.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			rs, err := st.Ledger(id)
			if err != nil {
				t.Fatal(err)
			}
			n[id] = len(rs)
		}
		return n
	}
	before := ledgers()
	_, a = s.post(`{"id":"e3","kind":"click","value":4}`)
	o := s.outcome(a.Drain)
	if !strings.Contains(o.Error, "restart prose serve --engine temporal") || !strings.Contains(o.Error, "graph:") || len(o.Receipts) != 0 {
		t.Fatalf("the drain on a worker with another graph: %+v, want it refused, naming the graphs and the fix", o)
	}
	if after := ledgers(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("receipts before the refused drain %v, after %v: want nothing committed", before, after)
	}
	s.stop()

	// Restarted, the server gives the workflow the project as it is.
	s.start(args...)
	defer s.stop()
	_, a = s.post(`{"id":"e4","kind":"click","value":8}`)
	if o := s.outcome(a.Drain); o.Error != "" || o.Rendered == 0 {
		t.Fatalf("the drain after the server restarted: %+v", o)
	}
	s.mu.Lock()
	retaken := strings.Count(strings.Join(s.lines, "\n"), "it takes the shape again")
	s.mu.Unlock()
	if retaken != 2 {
		t.Errorf("the server said %d times that the workflow takes the shape again, want 2 (after each edit)", retaken)
	}
}
