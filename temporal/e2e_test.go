package temporal

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/spec"
)

// The end-to-end tests need a Temporal server: .ci/run starts the one of
// internal/tempdev and sets these variables. Without them they skip.
const (
	envTestAddress   = "PROSE_TEMPORAL_TEST_ADDRESS"
	envTestNamespace = "PROSE_TEMPORAL_TEST_NAMESPACE"
	// envRecord names a directory to write the histories of the std runs
	// to (see TestReplayRecordedHistories).
	envRecord = "PROSE_TEMPORAL_RECORD_HISTORIES"
)

func e2eConn(t testing.TB, queue string) Conn {
	addr := os.Getenv(envTestAddress)
	if addr == "" {
		t.Skipf("%s is not set: no Temporal server to test against (.ci/run starts one)", envTestAddress)
	}
	return Conn{Address: addr, Namespace: os.Getenv(envTestNamespace), TaskQueue: queue}
}

func dialTest(t testing.TB, c Conn) client.Client {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := Dial(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// uniqueQueue gives each test its own task queue, so that workers of other
// tests (or of an earlier run against the same server) take none of its
// work.
func uniqueQueue(t testing.TB) string {
	return "prose-test-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-" + time.Now().Format("150405.000000000")
}

// startTestWorker starts a worker of a on conn's task queue, stopped
// with t.
func startTestWorker(t testing.TB, cl client.Client, conn Conn, a *Activities) {
	t.Helper()
	w := NewWorker(cl, conn, a, WorkerOptions{})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// TestE2EStdSameAsLocal runs the std table on a real server with an
// in-process worker, compares with the local engine, and, when asked,
// writes the histories the replay test reads.
func TestE2EStdSameAsLocal(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	// recorded histories are read by the replay tests without a key
	conn.plain = os.Getenv(envRecord) != ""
	cl := dialTest(t, conn)
	// The worker's model judge is the tests' own (see containsJudge).
	judge := &Activities{ModelJudgeFor: func(*spec.Spec) delegation.Judge { return containsJudge{} }}
	startTestWorker(t, cl, conn, judge)
	svc := svcPath(t)
	record := os.Getenv(envRecord)
	for _, c := range stdCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			local := runLocal(t, &c, svc)
			log := filepath.Join(t.TempDir(), "temporal.log")
			req, err := Resolve(ResolveOptions{Path: patternPath(c.pattern), Bindings: c.bindings(t, svc, log), HaveModel: c.judge != nil})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			id, err := Start(ctx, cl, conn, "", req)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Wait(ctx, cl, id)
			remote := outcomeOf(t, v, err, log)
			if local.err != remote.err || local.result != remote.result || strings.Join(local.calls, "\n") != strings.Join(remote.calls, "\n") {
				t.Errorf("local:    %q %s\ntemporal: %q %s", local.err, local.result, remote.err, remote.result)
			}
			if record != "" {
				writeHistory(t, cl, id, filepath.Join(record, c.name+".json"))
			}
		})
	}
}

// TestE2EKilledWorker kills a worker process with SIGKILL in the middle of
// a 20-step ratchet; a second worker finishes the run. Every step is
// certified once and kept, and no call that completed ran again.
func TestE2EKilledWorker(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	prose := buildProse(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	count, _ := filepath.Abs(filepath.Join("testdata", "count.sh"))
	slots := []string{
		"advancer=exec:sh " + shq(count) + " advancer 0.2",
		"certifier=exec:sh " + shq(count) + " certifier 0.1",
	}
	as, err := bind.ParseAssignments("--slot", slots)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := bind.ParseAssignments("--config", []string{"max_steps=20"})
	in, _ := bind.ParseAssignments("--input", []string{"task_brief=climb"})
	req, err := Resolve(ResolveOptions{Path: "std/patterns/ratchet.prose.md", Bindings: bind.Settings{Slots: as, Config: cfg, Inputs: in}})
	if err != nil {
		t.Fatal(err)
	}
	first := startWorker(t, prose, conn, log)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id, err := Start(ctx, cl, conn, "", req)
	if err != nil {
		t.Fatal(err)
	}
	// Kill the first worker once some steps are certified.
	for countLines(t, log, "done certifier") < 6 {
		if first.ProcessState != nil {
			t.Fatal("the first worker exited on its own")
		}
		time.Sleep(50 * time.Millisecond)
	}
	killNanos := time.Now().UnixNano()
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	killedAt := countLines(t, log, "done ")
	second := startWorker(t, prose, conn, log)
	defer second.Process.Kill()

	v, err := Wait(ctx, cl, id)
	if err != nil {
		t.Fatalf("the run did not finish on the second worker: %v", err)
	}
	res, _ := v.(*delegation.Object)
	prog, _ := res.Get("result")
	steps, _ := prog.(*delegation.List)
	if steps == nil || steps.Len() != 20 {
		t.Fatalf("result (certified progress) = %s, want 20 steps", delegation.Text(prog))
	}
	for i := 0; i < steps.Len(); i++ {
		s, _ := steps.Index(i)
		if s, _ := s.(string); !strings.HasPrefix(s, "step ") {
			t.Errorf("step %d is %q", i+1, s)
		}
	}
	// The history says which worker completed each call. A call whose
	// completion is recorded never ran again: its services logged one
	// start and one end. Only the call in flight at the kill may have run
	// twice (its program may even have finished, unreported).
	starts, ends := map[string]int{}, map[string]int{}
	for _, l := range readLines(t, log) {
		if f := strings.Fields(l); len(f) >= 4 {
			key := f[2]
			if f[3] != "1" {
				key += "#" + f[3]
			}
			if f[0] == "start" {
				starts[key]++
			} else {
				ends[key]++
			}
		}
	}
	byWorker := completedBy(t, cl, id)
	if len(byWorker) != 2 {
		t.Errorf("calls were completed by %d workers, want 2: %v", len(byWorker), byWorker)
	}
	completed, again := 0, 0
	firstID := strconv.Itoa(first.Process.Pid) + "@"
	for who, ids := range byWorker {
		for _, aid := range ids {
			completed++
			switch {
			case starts[aid] == 1 && ends[aid] == 1:
			case starts[aid] == 2 && !strings.HasPrefix(who, firstID):
				// in flight at the kill, completed by the second worker
			default:
				t.Errorf("call %s, completed by %s, ran %d times (%d ended)", aid, who, starts[aid], ends[aid])
			}
		}
	}
	if completed != 40 {
		t.Errorf("%d calls completed, want 40 (20 proposals, 20 certifications)", completed)
	}
	for aid, n := range starts {
		if n > 1 {
			again++
			if n > 2 {
				t.Errorf("call %s started %d times", aid, n)
			}
		}
	}
	if again > 1 {
		t.Errorf("%d calls ran twice; only the one in flight at the kill may", again)
	}
	if t.Failed() {
		t.Logf("killed at %d; the services' log:\n%s", killNanos, strings.Join(readLines(t, log), "\n"))
	}
	if killedAt >= countLines(t, log, "done ") {
		t.Errorf("the second worker ran no call (%d before the kill)", killedAt)
	}
}

// completedBy maps each worker identity to the activity ids whose
// completion it reported, from the run's history.
func completedBy(t testing.TB, cl client.Client, id string) map[string][]string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	scheduled := map[int64]string{}
	out := map[string][]string{}
	it := cl.GetWorkflowHistory(ctx, id, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[ev.GetEventId()] = a.GetActivityId()
		}
		if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
			out[a.GetIdentity()] = append(out[a.GetIdentity()], scheduled[a.GetScheduledEventId()])
		}
	}
	return out
}

// buildProse builds prose with the Temporal engine (prose-temporal, as
// the README installs it, under the name prose): a worker.
func buildProse(t testing.TB) string {
	bin := filepath.Join(t.TempDir(), "prose")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/prose-temporal")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func startWorker(t testing.TB, prose string, c Conn, log string) *exec.Cmd {
	cmd := exec.Command(prose, "worker", "--temporal-address", c.Address, "--namespace", c.Namespace, "--task-queue", c.TaskQueue)
	cmd.Env = append(os.Environ(), "LOG="+log)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd
}

func readLines(t testing.TB, path string) []string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func countLines(t testing.TB, path, prefix string) int {
	n := 0
	for _, l := range readLines(t, path) {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// writeHistory saves a finished workflow's history as JSON, the form the
// replayer reads.
func writeHistory(t testing.TB, cl client.Client, id, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data, err := historyJSON(ctx, cl, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Cancelling a run stops its running program (SIGTERM, then SIGKILL), as
// Ctrl-C does locally, and the run ends as cancelled.
func TestE2ECancelStopsTheProgram(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})
	pidFile := filepath.Join(t.TempDir(), "pid")
	req := guardRequest(t, "exec:echo $$ > "+shq(pidFile)+"; exec sleep 300", "exec:echo '\"ran\"'")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id, err := Start(ctx, cl, conn, "", req)
	if err != nil {
		t.Fatal(err)
	}
	var pid string
	for pid == "" {
		if ctx.Err() != nil {
			t.Fatal("the program never started")
		}
		data, _ := os.ReadFile(pidFile)
		pid = strings.TrimSpace(string(data))
		time.Sleep(20 * time.Millisecond)
	}
	if err := cl.CancelWorkflow(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	_, err = Wait(ctx, cl, id)
	var re *RunError
	if !errors.As(err, &re) || re.Kind != delegation.KindCanceled {
		t.Fatalf("err = %v, want a cancelled run", err)
	}
	// The worker learns of the cancellation at its next heartbeat.
	for alive(pid) {
		if ctx.Err() != nil {
			t.Fatalf("program %s still runs after the run was cancelled", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func alive(pid string) bool {
	st, err := os.ReadFile("/proc/" + pid + "/stat")
	return err == nil && !strings.Contains(string(st), ") Z")
}
