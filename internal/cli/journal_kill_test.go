package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/llm/llmtest"

	"github.com/proselang/prose/internal/testenv"
)

// killScenario is one run killed with SIGKILL at several points, each
// time resumed and then replayed with its services deleted.
type killScenario struct {
	name string
	spec string // under the module root ("" the fan-out test spec)
	args []string
	logs []string // service logs (testdata/journal/svc.sh roles)
	// model, when set, answers the run's model requests.
	model func(t *testing.T) *llmtest.Server
}

func svc(slot, role string) []string { return []string{"--slot", slot + "=exec:./svc.sh " + role} }

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var killScenarios = []killScenario{
	{name: "retry-flaky", spec: "std/patterns/retry-with-learning.prose.md", logs: []string{"flaky"},
		args: join([]string{"run", "retry-with-learning.prose.md", "--input", "task_brief=fetch", "--config", "max_retries=4"}, svc("target", "flaky"))},
	{name: "fanout-6x2", spec: "std/patterns/fan-out.prose.md", logs: []string{"ok"},
		args: join([]string{"run", "fan-out.prose.md", "--input", "task_brief=sum", "--max-parallel", "2"},
			svc("delegates", "ok"), svc("delegates", "ok"), svc("delegates", "ok"),
			svc("delegates", "ok"), svc("delegates", "ok"), svc("delegates", "ok"))},
	{name: "race", spec: "std/patterns/race.prose.md", logs: []string{"late", "slow", "fail"},
		args: join([]string{"run", "race.prose.md", "--input", "task_brief=go"},
			svc("candidates", "fail"), svc("candidates", "slow"), svc("candidates", "late"))},
	{name: "nested-refine", spec: "std/patterns/retry-with-learning.prose.md", logs: []string{"flaky", "score"},
		args: join([]string{"run", "retry-with-learning.prose.md", "--input", "task_brief=x", "--config", "max_retries=3",
			"--slot", "target=std/patterns/refine.prose.md"}, svc("target.refiner", "flaky"), svc("target.evaluator", "score"))},
	{name: "try-catch-timeout", spec: "testdata/journal/guarded.prose.md", logs: []string{"fail", "slow", "ok"},
		args: join([]string{"run", "guarded.prose.md"}, svc("primary", "fail"), svc("slowpoke", "slow"), svc("finisher", "ok"))},
	{name: "model-judged", spec: "std/patterns/retry-with-learning.prose.md", logs: []string{"flaky"},
		args: join([]string{"run", "retry-with-learning.prose.md", "--input", "task_brief=fetch", "--config", "max_retries=5",
			"--config", "failure_criteria=the result names the third attempt"}, svc("target", "flaky")),
		model: func(t *testing.T) *llmtest.Server {
			fail, pass := llmtest.Verdict(true, "third"), llmtest.Verdict(false, "fine")
			fail.Match, fail.Times = `L67/3`, -1
			pass.Times = -1
			return llmtest.NewServer(t, fail, pass)
		}},
}

// TestJournalKillPoints kills each scenario's run at a few points (after
// its first record, in the middle, near the end), resumes and replays it.
// PROSE_KILL_ALL=1 kills at every record of the run instead (slow: one
// run, resume and replay per record).
func TestJournalKillPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the prose binary")
	}
	bin := buildProse(t, t.TempDir())
	for _, sc := range killScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			testKillScenario(t, bin, sc, os.Getenv("PROSE_KILL_ALL") != "")
		})
	}
}

func testKillScenario(t *testing.T, bin string, sc killScenario, all bool) {
	var env []string
	if sc.model != nil {
		srv := sc.model(t)
		env = []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=test-key", "PROSE_MODEL=test-model"}
	}
	ref := newKillWorld(t, bin, sc, env)
	want, stderr, code := ref.prose(append(sc.args, "--quiet")...)
	if code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, stderr)
	}
	l, err := journal.ReadFile(filepath.Join(ref.dir, ".prose", "runs", ref.runID(), journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	total := len(l.Records)
	points := []int{1, total / 2, total - 2}
	if all {
		points = points[:0]
		for n := 1; n < total; n++ {
			points = append(points, n)
		}
	}
	t.Logf("%d records; killing at %v", total, points)
	for _, n := range points {
		w := newKillWorld(t, bin, sc, env)
		killAt(t, w, n, want, sc)
	}
}

func newKillWorld(t *testing.T, bin string, sc killScenario, env []string) *journalWorld {
	w := newJournalWorld(t, bin, sc.spec, "")
	copyFile(t, filepath.Join(testenv.MustRoot(t), "testdata", "journal", "svc.sh"), filepath.Join(w.dir, "svc.sh"))
	w.env = append(w.env, env...)
	w.env = append(w.env, "JSLEEP=0.05")
	return w
}

// killAt kills the run once its journal holds n records, resumes it
// (comparing its output with want and checking that no call completed
// before the kill ran again), then replays it without services.
func killAt(t *testing.T, w *journalWorld, n int, want string, sc killScenario) {
	t.Helper()
	args := append(sc.args, "--quiet")
	id := w.killWhen(func(l *journal.Log) bool { return len(l.Records) >= n }, args...)
	path := filepath.Join(w.dir, ".prose", "runs", id, journal.FileName)
	l, err := journal.ReadFile(path)
	if err != nil {
		t.Fatalf("kill at %d: %v", n, err)
	}
	completed := map[string]bool{}
	for _, r := range completedEnds(l) {
		completed[r.ID.Key()+" "+strconv.Itoa(r.Attempt)] = true
	}
	got, stderr, code := w.prose("resume", id)
	if code != 0 || got != want {
		t.Fatalf("kill at record %d: resume exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", n, code, got, want, stderr)
	}
	for _, log := range sc.logs {
		for call, c := range startedCalls(w, log) {
			if completed[call] && c > 1 {
				t.Errorf("kill at record %d: %s call %s was journaled as completed and ran %d times", n, log, call, c)
			}
		}
	}
	os.Remove(filepath.Join(w.dir, "svc.sh"))
	w.env = append(w.env, "OPENAI_BASE_URL=http://127.0.0.1:9/v1")
	got, stderr, code = w.prose("replay", id)
	if code != 0 || got != want {
		t.Errorf("kill at record %d: replay without services: exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", n, code, got, want, stderr)
	}
}

// startedCalls counts the "start ID ATTEMPT" lines of a svc.sh log.
func startedCalls(w *journalWorld, log string) map[string]int {
	b, _ := os.ReadFile(filepath.Join(w.dir, "log", log+".log"))
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if call, ok := strings.CutPrefix(line, "start "); ok {
			out[call]++
		}
	}
	return out
}
