package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/serve/temporalserve"
	"github.com/proselang/prose/temporal"
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
