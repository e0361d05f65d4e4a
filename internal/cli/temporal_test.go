//go:build temporal

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/temporal"
)

func TestTemporalFlagsUsage(t *testing.T) {
	t.Setenv(temporal.EnvAddress, "")
	run := []string{"run", "--no-journal", "std/patterns/guard.prose.md", "--slot", "guard=exec:true", "--slot", "target=exec:true", "--input", "task_brief=x"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(run, "--engine", "temporal"), "--engine temporal needs --temporal-address"},
		{append(run, "--engine", "cloud"), `--engine "cloud": use local or temporal`},
		{append(run, "--detach"), "--detach needs --engine temporal"},
		{append(run, "--engine", "temporal", "--temporal-address", "127.0.0.1:1", "--trace", "t.jsonl"), "--trace does not apply to --engine temporal"},
		{append(run, "--task-queue", "q"), "--task-queue needs --engine temporal"},
		{append(run, "--engine", "temporal", "--temporal-address", "127.0.0.1:1", "--base-url", "http://localhost:1/v1"), "--base-url does not apply to --engine temporal"},
		{append(run, "--engine", "temporal", "--temporal-address", "127.0.0.1:1", "--max-parallel", "0"), "--max-parallel must be at least 1"},
		{[]string{"result", "some-id"}, "result needs --temporal-address"},
		{append(run, "--attach"), "--attach needs --engine temporal"},
		{append(run, "--engine", "temporal", "--temporal-address", "127.0.0.1:1", "--attach"), "--attach needs --workflow-id"},
		{[]string{"worker"}, "worker needs --temporal-address"},
		// a bad request is refused before any connection is tried
		{[]string{"run", "std/patterns/guard.prose.md", "--engine", "temporal", "--temporal-address", "127.0.0.1:1", "--slot", "gaurd=exec:true"}, "gaurd"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("prose %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// Against a real server (.ci/run starts one): a detached run and prose
// result print what a local run prints, for a result and for a failure.
func TestE2ETemporalCLI(t *testing.T) {
	temporalWorker(t, "prose-cli-")

	for _, target := range []string{`exec:echo '"launched"'`, "exec:echo disk full >&2; exit 3"} {
		args := []string{"std/patterns/guard.prose.md", "-q", "--slot", `guard=exec:echo '{"proceed":true}'`, "--slot", "target=" + target, "--input", "task_brief=go"}
		lcode, lout, lerr := runMain(t, append([]string{"run", "--no-journal"}, args...)...)
		code, id, stderr := runMain(t, append([]string{"run", "--engine", "temporal", "--detach"}, args...)...)
		if code != 0 || strings.TrimSpace(id) == "" {
			t.Fatalf("detached run: exit %d, stdout %q, stderr %q", code, id, stderr)
		}
		rcode, rout, rerr := runMain(t, "result", strings.TrimSpace(id))
		if rcode != lcode || rout != lout || rerr != lerr {
			t.Errorf("target %s:\nlocal:    exit %d stdout %q stderr %q\ntemporal: exit %d stdout %q stderr %q", target, lcode, lout, lerr, rcode, rout, rerr)
		}
		// attached, through the environment's connection
		acode, aout, _ := runMain(t, append([]string{"run", "--engine", "temporal"}, args...)...)
		if acode != lcode || aout != lout {
			t.Errorf("attached run: exit %d stdout %q, want %d %q", acode, aout, lcode, lout)
		}
	}

	// A function whose inline nodes are served by programs prints what it
	// prints locally.
	args := []string{"testdata/run/release-note.prose.md", "-q", "--input", "changes=faster search; new export", "--input", "audience=users",
		"--slot", "headline-writer=exec:testdata/run/headline.sh", "--slot", "summarizer=exec:testdata/run/summarize.sh"}
	t.Chdir(filepath.Join("..", ".."))
	lcode, lout, lerr := runMain(t, append([]string{"run", "--no-journal"}, args...)...)
	code, out, stderr := runMain(t, append([]string{"run", "--engine", "temporal"}, args...)...)
	if lcode != 0 || code != lcode || out != lout || !strings.Contains(out, "change-count") {
		t.Errorf("function:\nlocal:    exit %d stdout %q stderr %q\ntemporal: exit %d stdout %q stderr %q", lcode, lout, lerr, code, out, stderr)
	}
}

// Against a real server: a run that fails on Temporal exits with the
// status, and prints the error and the advice, of the same run done
// locally (the advice follows the run.Code the workflow sends back).
func TestE2ETemporalCLIFailureCodes(t *testing.T) {
	temporalWorker(t, "prose-cli-codes-")
	spec := filepath.Join(t.TempDir(), "loop.prose.md")
	src := "---\nname: loop\nkind: pattern\n---\n\n# Loop\n\nCounts, then asks.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nlet n = 0\nrepeat 100:\n  n = n + 1\nlet r = call worker\n  n: n\nreturn r\n```\n"
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		advice string
	}{
		{[]string{"--slot", "worker=exec:echo 100", "--max-steps", "50"}, "raise it if the loops are meant to be this long"},
		{[]string{"--slot", `worker=exec:echo '"` + strings.Repeat("x", 64) + `"'`, "--max-value-bytes", "32"}, "raise it if the values are meant to be this large"},
		{[]string{"--slot", "worker=exec:echo disk full >&2; exit 3"}, "disk full"},
	} {
		args := append([]string{spec, "-q"}, tc.args...)
		lcode, lout, lerr := runMain(t, append([]string{"run", "--no-journal"}, args...)...)
		if lcode != exitFailure || !strings.Contains(lerr, tc.advice) {
			t.Fatalf("local run %v: exit %d stderr %q, want exit %d saying %q", tc.args, lcode, lerr, exitFailure, tc.advice)
		}
		code, id, stderr := runMain(t, append([]string{"run", "--engine", "temporal", "--detach"}, args...)...)
		if code != 0 || strings.TrimSpace(id) == "" {
			t.Fatalf("detached run: exit %d, stdout %q, stderr %q", code, id, stderr)
		}
		rcode, rout, rerr := runMain(t, "result", strings.TrimSpace(id))
		if rcode != lcode || rout != lout || rerr != lerr {
			t.Errorf("%v:\nlocal:    exit %d stdout %q stderr %q\ntemporal: exit %d stdout %q stderr %q", tc.args, lcode, lout, lerr, rcode, rout, rerr)
		}
		acode, aout, aerr := runMain(t, append([]string{"run", "--engine", "temporal"}, args...)...)
		if acode != lcode || aout != lout || !strings.Contains(aerr, tc.advice) {
			t.Errorf("attached run %v: exit %d stdout %q stderr %q, want exit %d saying %q", tc.args, acode, aout, aerr, lcode, tc.advice)
		}
	}
}

// Against a real server: --workflow-id of a running workflow is refused
// with exit 2 naming it (not answered with that run's result), --attach
// waits for that run instead, and prose result of an unknown id exits 2.
func TestE2ETemporalCLIWorkflowID(t *testing.T) {
	_, conn := temporalWorker(t, "prose-cli-id-")

	gate := filepath.Join(t.TempDir(), "gate")
	id := "wf-" + conn.TaskQueue
	first := []string{"run", "--engine", "temporal", "--workflow-id", id, "-q", "std/patterns/guard.prose.md", "--input", "task_brief=go",
		"--slot", `guard=exec:echo '{"proceed":true}'`,
		"--slot", "target=exec:while [ ! -e '" + gate + "' ]; do sleep 0.05; done; echo '\"first\"'"}
	if code, out, stderr := runMain(t, append(first, "--detach")...); code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("first run: exit %d stdout %q stderr %q", code, out, stderr)
	}
	second := append(append([]string(nil), first[:len(first)-1]...), `target=exec:echo '"second"'`)
	code, out, stderr := runMain(t, second...)
	if code != exitUsage || out != "" || !strings.Contains(stderr, "workflow "+id+" is already running") || !strings.Contains(stderr, "--attach") {
		t.Errorf("second run of %s: exit %d stdout %q stderr %q, want exit 2 naming the running workflow", id, code, out, stderr)
	}
	if code, out, _ := runMain(t, append(second, "--attach", "--detach")...); code != 0 || strings.TrimSpace(out) != id {
		t.Errorf("attached, detached: exit %d stdout %q, want %s", code, out, id)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// the attached start started nothing: the id's result is the first run's
	code, out, stderr = runMain(t, "result", id)
	if code != 0 || !strings.Contains(out, `"first"`) {
		t.Errorf("result %s: exit %d stdout %q stderr %q, want the first run's result", id, code, out, stderr)
	}
	code, out, stderr = runMain(t, "result", "no-such-"+id)
	if code != exitUsage || out != "" || !strings.Contains(stderr, "no run with workflow id") {
		t.Errorf("result of an unknown id: exit %d stdout %q stderr %q, want exit 2", code, out, stderr)
	}
}

// temporalWorker skips t without a Temporal server to test against
// (PROSE_TEMPORAL_TEST_ADDRESS; .ci/run starts one), else starts a worker
// on a task queue of its own named from prefix, points the command at it
// through the environment, and returns a context bounding the test and
// the connection. The worker, client and context end with t.
func temporalWorker(t *testing.T, prefix string) (context.Context, temporal.Conn) {
	t.Helper()
	addr := os.Getenv("PROSE_TEMPORAL_TEST_ADDRESS")
	if addr == "" {
		t.Skip("PROSE_TEMPORAL_TEST_ADDRESS is not set: no Temporal server to test against (.ci/run starts one)")
	}
	conn := temporal.Conn{Address: addr, Namespace: os.Getenv("PROSE_TEMPORAL_TEST_NAMESPACE"),
		TaskQueue: prefix + time.Now().Format("150405.000000000")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cl, err := temporal.Dial(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	w := temporal.NewWorker(cl, conn, &temporal.Activities{}, temporal.WorkerOptions{})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	t.Setenv(temporal.EnvAddress, addr)
	t.Setenv(temporal.EnvNamespace, conn.Namespace)
	t.Setenv(temporal.EnvTaskQueue, conn.TaskQueue)
	return ctx, conn
}
