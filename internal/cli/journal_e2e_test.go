package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/llm/llmtest"

	"github.com/proselang/prose/internal/testenv"
)

// These tests run the real prose binary, kill it with SIGKILL in the
// middle of a run, and resume it.

// buildProse builds the whole command line (prose-full) into dir under
// the name prose, with the Temporal engine (prose-temporal) when the
// tests have it (go test -tags temporal).
func buildProse(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "prose")
	pkg := "github.com/proselang/prose/cmd/prose-full"
	if linked != nil {
		pkg = "github.com/proselang/prose/cmd/prose-temporal"
	}
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// journalWorld is a directory holding a spec, the test services and their
// invocation logs.
type journalWorld struct {
	t    *testing.T
	bin  string
	dir  string
	env  []string
	spec string
}

func newJournalWorld(t *testing.T, bin, specSrc string, block string) *journalWorld {
	t.Helper()
	root := testenv.MustRoot(t)
	dir := t.TempDir()
	for _, f := range []string{"adv.sh", "cert.sh", "worker.sh", "fanout.prose.md"} {
		copyFile(t, filepath.Join(root, "testdata", "journal", f), filepath.Join(dir, f))
	}
	spec := filepath.Join(dir, "fanout.prose.md")
	if specSrc != "" {
		spec = filepath.Join(dir, filepath.Base(specSrc))
		copyFile(t, filepath.Join(root, specSrc), spec)
	}
	os.Mkdir(filepath.Join(dir, "log"), 0o755)
	env := append(os.Environ(), "JLOG="+filepath.Join(dir, "log"), "JBLOCK="+block)
	return &journalWorld{t: t, bin: bin, dir: dir, env: env, spec: spec}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func (w *journalWorld) command(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// prose runs the binary to completion.
func (w *journalWorld) prose(args ...string) (stdout, stderr string, code int) {
	cmd, out, errb := w.command(args...)
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// killWhen starts `prose args...`, waits until ready(journal) holds, and
// kills the process with SIGKILL. It returns the run id.
func (w *journalWorld) killWhen(ready func(l *journal.Log) bool, args ...string) string {
	w.t.Helper()
	cmd, _, errb := w.command(args...)
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if id := w.runID(); id != "" {
			l, err := journal.ReadFile(filepath.Join(w.dir, ".prose", "runs", id, journal.FileName))
			if err == nil && ready(l) {
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				w.waitUnlocked(filepath.Join(w.dir, ".prose", "runs", id, journal.FileName))
				return id
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			w.t.Fatalf("the run never reached the kill point; stderr:\n%s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitUnlocked waits until no process holds the journal's lock. A child
// that prose forked just before it was killed holds a copy of the
// journal's descriptor until it execs or dies (Pdeathsig), so a resume
// started at once may find the journal in use: the user would wait too.
// The deadline is a guard against a lock that never goes, not a measure.
func (w *journalWorld) waitUnlocked(path string) {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		}
		f.Close()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the killed run's journal is still locked after a minute: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (w *journalWorld) runID() string {
	ents, _ := os.ReadDir(filepath.Join(w.dir, ".prose", "runs"))
	if len(ents) != 1 {
		return ""
	}
	return ents[0].Name()
}

func (w *journalWorld) touch(name string) {
	if err := os.WriteFile(filepath.Join(w.dir, "log", name), nil, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// invocations counts the "done ID" and "start ID" lines of a service log.
func (w *journalWorld) invocations(log string) (done, start map[string]int) {
	b, _ := os.ReadFile(filepath.Join(w.dir, "log", log))
	done, start = map[string]int{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, id, _ := strings.Cut(line, " ")
		switch kind {
		case "done":
			done[id]++
		case "start":
			start[id]++
		}
	}
	return done, start
}

func certifiedSteps(l *journal.Log) int {
	n := 0
	for _, r := range l.Records {
		if r.Type == journal.TypeJudge && r.Holds != nil && *r.Holds {
			n++
		}
	}
	return n
}

// completedEnds returns the "end" records of l that hold an outcome (not
// a cancellation): the calls a resume must not run again.
func completedEnds(l *journal.Log) []*journal.Record {
	var out []*journal.Record
	for _, r := range l.Records {
		if r.Type == journal.TypeEnd && r.Kind != journal.KindCanceled {
			out = append(out, r)
		}
	}
	return out
}

func completedCalls(l *journal.Log) int { return len(completedEnds(l)) }

func TestJournalKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the prose binary")
	}
	bin := buildProse(t, t.TempDir())
	t.Run("ratchet", func(t *testing.T) { testKilledRatchet(t, bin) })
	t.Run("fanout", func(t *testing.T) { testKilledFanout(t, bin) })
	t.Run("replay-without-services", func(t *testing.T) { testReplayWithoutServices(t, bin) })
	t.Run("changed-spec", func(t *testing.T) { testChangedSpecRefused(t, bin) })
	t.Run("kill-any-moment", func(t *testing.T) { testKillAnyMoment(t, bin) })
	t.Run("interrupt", func(t *testing.T) { testInterrupted(t, bin) })
	t.Run("secrets", func(t *testing.T) { testSecretsNotJournaled(t, bin) })
	t.Run("replay-without-model", func(t *testing.T) { testReplayWithoutModel(t, bin) })
	t.Run("replay-failed-run", func(t *testing.T) { testReplayFailedRun(t, bin) })
}

var ratchetArgs = []string{"run", "ratchet.prose.md", "--quiet",
	"--slot", "advancer=exec:./adv.sh", "--slot", "certifier=exec:./cert.sh",
	"--input", "task_brief=ship it", "--config", "max_steps=8"}

// A ratchet killed with SIGKILL after its third certified step, while its
// next proposal is being made, then resumed: the certified steps survive in
// order and no completed service call runs again.
func testKilledRatchet(t *testing.T, bin string) {
	ref := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
	want, stderr, code := ref.prose(ratchetArgs...)
	if code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, stderr)
	}

	w := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "/6")
	var beforeKill []string
	id := w.killWhen(func(l *journal.Log) bool {
		b, _ := os.ReadFile(filepath.Join(w.dir, "log", "adv.log"))
		return certifiedSteps(l) == 3 && strings.Contains(string(b), "block ")
	}, ratchetArgs...)
	l, _ := journal.ReadFile(filepath.Join(w.dir, ".prose", "runs", id, journal.FileName))
	if l.Final() != nil {
		t.Fatalf("the killed run has a final record")
	}
	for _, r := range l.Records {
		if r.Type == journal.TypeEnd && r.Slot == "advancer" {
			var p struct{ Step string }
			json.Unmarshal(r.Result, &p)
			beforeKill = append(beforeKill, p.Step)
		}
	}
	// A replay of the killed run stops at the call that was in flight,
	// naming it and its position.
	_, start := w.invocations("adv.log")
	var inflight string
	for id, n := range start {
		if strings.HasSuffix(id, "/6") && n == 1 {
			inflight = id
		}
	}
	line := strings.TrimPrefix(strings.Split(inflight, "/")[0], "L")
	out, stderr, code := w.prose("replay", id)
	if code != 1 || out != "" || !strings.Contains(stderr, "call "+inflight+" diverges") ||
		!strings.Contains(stderr, "ratchet.prose.md:"+line+":") || !strings.Contains(stderr, "stopped while this call was running") {
		t.Errorf("replay of the killed run: exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
	w.touch("resumed")
	got, stderr, code := w.prose("resume", id)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if got != want {
		t.Errorf("resumed result:\n%s\nwant (uninterrupted run):\n%s", got, want)
	}
	var res struct{ Result []struct{ Step string } }
	if err := json.Unmarshal([]byte(got), &res); err != nil || len(res.Result) < 3 {
		t.Fatalf("result %q: %v", got, err)
	}
	// Steps certified before the kill: iterations 1, 3 and 5.
	for i, it := range []int{0, 2, 4} {
		if res.Result[i].Step != beforeKill[it] {
			t.Errorf("certified step %d is %q, want %q (certified before the kill)", i+1, res.Result[i].Step, beforeKill[it])
		}
	}
	// Every call ran to completion once; only the one in flight at the
	// kill (the blocked proposal) started twice.
	for _, log := range []string{"adv.log", "cert.log"} {
		done, start := w.invocations(log)
		for id, n := range done {
			want := 1
			if log == "adv.log" && strings.HasSuffix(id, "/6") {
				want = 2
			}
			if n != 1 || start[id] != want {
				t.Errorf("%s: call %s completed %d times, started %d times; want 1 and %d", log, id, n, start[id], want)
			}
		}
	}
	if _, start := w.invocations("adv.log"); len(start) != 8 {
		t.Errorf("advancer call ids %v, want 8", start)
	}
}

// A parallel fan-out killed while three of its six branches hang: the
// three finished branches are not run again.
func testKilledFanout(t *testing.T, bin string) {
	args := []string{"run", "fanout.prose.md", "--quiet", "--slot", "worker=exec:./worker.sh"}
	w := newJournalWorld(t, bin, "", "/4 /5 /6")
	id := w.killWhen(func(l *journal.Log) bool {
		_, start := w.invocations("worker.log")
		return completedCalls(l) == 3 && len(start) == 6
	}, args...)
	doneBefore, _ := w.invocations("worker.log")
	if len(doneBefore) != 3 {
		t.Fatalf("before the kill %d branches finished, want 3", len(doneBefore))
	}
	w.touch("resumed")
	got, stderr, code := w.prose("resume", id)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	done, start := w.invocations("worker.log")
	for id := range doneBefore {
		if start[id] != 1 || done[id] != 1 {
			t.Errorf("finished branch %s ran again (%d starts)", id, start[id])
		}
	}
	if len(done) != 6 {
		t.Errorf("after resume %d branches finished, want 6", len(done))
	}
	var res struct{ Results []string }
	if err := json.Unmarshal([]byte(got), &res); err != nil || len(res.Results) != 6 {
		t.Fatalf("result %q: %v", got, err)
	}
	for i, r := range res.Results {
		if !strings.HasSuffix(r, "/"+string(rune('1'+i))) {
			t.Errorf("result %d is %q: out of order", i, r)
		}
	}
}

// A finished run replayed with its services deleted prints the same
// stdout, byte for byte.
func testReplayWithoutServices(t *testing.T, bin string) {
	w := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
	want, stderr, code := w.prose(ratchetArgs...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	id := w.runID()
	for _, f := range []string{"adv.sh", "cert.sh"} {
		os.Remove(filepath.Join(w.dir, f))
	}
	os.Remove(filepath.Join(w.dir, "log", "adv.log"))
	trace := filepath.Join(w.dir, "replay.jsonl")
	got, stderr, code := w.prose("replay", id, "--trace", trace)
	if code != 0 || got != want {
		t.Fatalf("replay: exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, got, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "log", "adv.log")); err == nil {
		t.Errorf("replay ran a service")
	}
	if b, err := os.ReadFile(trace); err != nil || !bytes.Contains(b, []byte(`"t":"end"`)) {
		t.Errorf("replay trace: %v %.200s", err, b)
	}
	// Other arguments than the journal's: the first call diverges, and the
	// resume stops there without running anything.
	out, stderr, code := w.prose("resume", id, "--input", "task_brief=something else")
	if code != 1 || out != "" || !strings.Contains(stderr, "ratchet.prose.md:") || !strings.Contains(stderr, "arguments differ") {
		t.Errorf("diverging resume: exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
}

// A resume of a journal whose spec changed since the run is refused, with
// a message that says so, unless --force; a replay reads the spec's source
// as the journal kept it.
func testChangedSpecRefused(t *testing.T, bin string) {
	w := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
	want, stderr, code := w.prose(ratchetArgs...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	id := w.runID()
	f, _ := os.OpenFile(w.spec, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\nAn added line: a new version of the spec.\n")
	f.Close()
	out, stderr, code := w.prose("resume", id)
	if code != 1 || out != "" || !strings.Contains(stderr, "changed since the run started") || !strings.Contains(stderr, "ratchet.prose.md") || !strings.Contains(stderr, "(--force") {
		t.Errorf("resume of a changed spec: exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
	// A replay reads the source its journal kept (journal/FORMAT.md, Spec
	// sources).
	if out, stderr, code := w.prose("replay", id, "--quiet"); code != 0 || out != want {
		t.Errorf("replay of a changed spec: exit %d, stdout %q, want %q; stderr:\n%s", code, out, want, stderr)
	}
	// A refused resume leaves the run as it was.
	if out, _, _ := w.prose("runs"); !strings.Contains(out, " ok ") {
		t.Errorf("after refused resumes, prose runs says:\n%s", out)
	}
	if _, stderr, code := w.prose("resume", id, "--force"); code != 0 || !strings.Contains(stderr, "warning") {
		t.Errorf("resume --force: exit %d\n%s", code, stderr)
	}
	// The journal now belongs to the new version.
	if _, stderr, code := w.prose("resume", id); code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("resume after a forced resume: exit %d\n%s", code, stderr)
	}
}

// Killed at arbitrary moments (and with a torn last line), a run always
// resumes to the uninterrupted result, and no call the journal had
// completed at the kill runs again.
func testKillAnyMoment(t *testing.T, bin string) {
	ref := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
	want, stderr, code := ref.prose(ratchetArgs...)
	if code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, stderr)
	}
	for i, calls := range []int{0, 1, 4, 7, 11, 15} {
		w := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
		id := w.killWhen(func(l *journal.Log) bool { return completedCalls(l) >= calls }, ratchetArgs...)
		path := filepath.Join(w.dir, ".prose", "runs", id, journal.FileName)
		l, err := journal.ReadFile(path)
		if err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		completed := map[string]bool{}
		for _, r := range completedEnds(l) {
			completed[r.ID.Key()] = true
		}
		if i%2 == 1 { // a write cut short by the kill
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"t":"end","id":"L67/9","attempt":1,"res`)
			f.Close()
		}
		got, stderr, code := w.prose("resume", id)
		if code != 0 || got != want {
			t.Fatalf("kill after %d calls: resume exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", calls, code, got, want, stderr)
		}
		for _, log := range []string{"adv.log", "cert.log"} {
			_, start := w.invocations(log)
			for id := range completed {
				if start[id] > 1 {
					t.Errorf("kill after %d calls: %s call %s was journaled as completed and ran again", calls, log, id)
				}
			}
		}
	}
}

// Ctrl-C while a call is running: exit 130, the journal says
// "interrupted", and a resume finishes the run without repeating the
// completed calls.
func testInterrupted(t *testing.T, bin string) {
	ref := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
	want, _, _ := ref.prose(ratchetArgs...)
	w := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "/6")
	cmd, _, errb := w.command(ratchetArgs...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(w.dir, "log", "adv.log"))
		if strings.Contains(string(b), "block ") {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("never blocked: %s", errb)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v, want exit 130\n%s", err, errb)
	}
	id := w.runID()
	s := journal.Summarize(filepath.Join(w.dir, ".prose", "runs", id, journal.FileName))
	if s.Status != journal.StatusInterrupted || s.Calls != 10 {
		t.Errorf("interrupted journal: status %s, %d calls; want interrupted, 10", s.Status, s.Calls)
	}
	w.touch("resumed")
	got, stderr, code := w.prose("resume", id)
	if code != 0 || got != want {
		t.Fatalf("resume: exit %d\n%s\nwant\n%s\n%s", code, got, want, stderr)
	}
	done, _ := w.invocations("adv.log")
	for id, n := range done {
		if n != 1 {
			t.Errorf("advancer call %s completed %d times", id, n)
		}
	}
}

// Secrets in bindings and inputs never reach the journal; a resume asks
// for them again.
func testSecretsNotJournaled(t *testing.T, bin string) {
	w := newJournalWorld(t, bin, "std/patterns/ratchet.prose.md", "")
	w.env = append(w.env, "MY_SERVICE_TOKEN=tok-0123456789abcdef")
	args := []string{"run", "ratchet.prose.md", "--quiet",
		"--slot", "advancer=exec:API_TOKEN=hunter2-secret ./adv.sh", "--slot", "certifier=exec:./cert.sh",
		"--input", "task_brief=use tok-0123456789abcdef", "--config", "max_steps=2"}
	want, stderr, code := w.prose(args...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	id := w.runID()
	b, _ := os.ReadFile(filepath.Join(w.dir, ".prose", "runs", id, journal.FileName))
	for _, secret := range []string{"hunter2-secret", "tok-0123456789abcdef"} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the journal holds the secret %q", secret)
		}
	}
	_, stderr, code = w.prose("resume", id)
	if code != 2 || !strings.Contains(stderr, "slot advancer") || !strings.Contains(stderr, "input task_brief") {
		t.Errorf("resume without the secrets: exit %d\n%s", code, stderr)
	}
	got, stderr, code := w.prose("resume", id, "--slot", "advancer=exec:API_TOKEN=hunter2-secret ./adv.sh",
		"--input", "task_brief=use tok-0123456789abcdef")
	if code != 0 || got != want {
		t.Errorf("resume with the secrets given again: exit %d\n%s\nwant\n%s\n%s", code, got, want, stderr)
	}
}

// A run whose slot is a model and whose condition a model judged replays
// with no model configured and no request sent.
func testReplayWithoutModel(t *testing.T, bin string) {
	srv := llmtest.NewServer(t, llmtest.Text("The sea keeps its own counsel."), llmtest.Verdict(true, "it scans"))
	w := newJournalWorld(t, bin, "testdata/journal/judged.prose.md", "")
	base := w.env
	w.env = append(base, "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test-key-not-secret", "PROSE_MODEL=test-model")
	want, stderr, code := w.prose("run", "judged.prose.md", "--quiet", "--slot", "writer=llm")
	if code != 0 || !strings.Contains(want, `"good"`) {
		t.Fatalf("run: exit %d\n%s\n%s", code, want, stderr)
	}
	sent := srv.Count()
	w.env = append(base, "OPENAI_BASE_URL=http://127.0.0.1:9/v1")
	got, stderr, code := w.prose("replay", w.runID())
	if code != 0 || got != want {
		t.Errorf("replay without a model: exit %d\n%s\nwant\n%s\n%s", code, got, want, stderr)
	}
	if srv.Count() != sent {
		t.Errorf("the replay sent %d model requests", srv.Count()-sent)
	}
}

// A run that failed replays to the same failure.
func testReplayFailedRun(t *testing.T, bin string) {
	w := newJournalWorld(t, bin, "", "")
	_, stderr, code := w.prose("run", "fanout.prose.md", "--quiet", "--slot", "worker=exec:echo broken >&2; exit 3")
	if code != 1 || !strings.Contains(stderr, "broken") {
		t.Fatalf("failing run: exit %d\n%s", code, stderr)
	}
	errLine := stderr[strings.LastIndex(strings.TrimSpace(stderr), "\n")+1:]
	out, stderr2, code := w.prose("replay", w.runID())
	if code != 1 || out != "" || !strings.HasSuffix(stderr2, errLine) {
		t.Errorf("replay of a failed run: exit %d, stdout %q, stderr:\n%s\nwant it to end with:\n%s", code, out, stderr2, errLine)
	}
}
