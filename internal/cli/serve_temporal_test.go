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
