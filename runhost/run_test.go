package runhost

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// versions are the two sources of a pattern under test: the corpus (read
// in place, skipped when absent) and the library's own.
var versions = []string{"corpus", "std"}

func specPath(t *testing.T, which, name string) string {
	if which == "corpus" {
		return corpusSpec(t, name)
	}
	return "std/patterns/" + name + ".prose.md"
}

func TestRetryWithLearningSucceedsOnThirdAttempt(t *testing.T) {
	for _, which := range versions {
		t.Run(which, func(t *testing.T) {
			path := specPath(t, which, "retry-with-learning")
			o := runSpec(t, path, []string{
				"slot:target=" + execDemo(t, "flaky.sh", "FLAKY_FAILS=2"),
				"input:task_brief=fetch the status page",
			})
			if o.err != nil {
				t.Fatal(o.err)
			}
			got := decode(t, o.value).(map[string]any)
			if want := `{"call":3,"data":"[ops] fetched payload for unknown"}`; mustJSON(t, got["result"]) != want {
				t.Errorf("result = %s, want the third output %s", mustJSON(t, got["result"]), want)
			}
			if got["attempts"] != 3.0 {
				t.Errorf("attempts = %v, want 3", got["attempts"])
			}
			hist, _ := got["failure_history"].([]any)
			if len(hist) != 2 {
				t.Fatalf("failure_history = %s, want 2 entries", mustJSON(t, got["failure_history"]))
			}
			for i, h := range hist {
				e := h.(map[string]any)
				if e["attempt"] != float64(i+1) || !strings.Contains(mustJSON(t, e["reason"]), "transient failure") {
					t.Errorf("entry %d = %s", i, mustJSON(t, e))
				}
			}
			if n := o.events.count("call.end", "target"); n != 3 {
				t.Errorf("target ran %d times, want 3", n)
			}
		})
	}
}

func TestRetryWithLearningExhausted(t *testing.T) {
	for _, which := range versions {
		t.Run(which, func(t *testing.T) {
			path := specPath(t, which, "retry-with-learning")
			o := runSpec(t, path, []string{
				"slot:target=" + execDemo(t, "flaky.sh", "FLAKY_FAILS=100"),
				"input:task_brief=fetch",
				"config:max_retries=3",
			})
			if o.err != nil {
				t.Fatal(o.err)
			}
			got := decode(t, o.value).(map[string]any)
			hist, _ := got["failure_history"].([]any)
			if got["result"] != nil || got["attempts"] != 3.0 || len(hist) != 3 {
				t.Errorf("got %s, want result null, attempts 3, three history entries", mustJSON(t, got))
			}
			if n := len(o.traceOf("end")); n != 3 {
				t.Errorf("trace has %d call.end records, want 3", n)
			}
		})
	}
}

func TestRatchetWithProgramServices(t *testing.T) {
	for _, which := range versions {
		t.Run(which, func(t *testing.T) {
			path := specPath(t, which, "ratchet")
			log := filepath.Join(t.TempDir(), "log")
			o := runSpec(t, path, []string{
				"slot:advancer=" + execDemo(t, "advancer.sh", "PROSE_DEMO_LOG="+log),
				"slot:certifier=" + execDemo(t, "certifier.sh", "PROSE_DEMO_LOG="+log),
				"input:task_brief=ship release 1.2",
				"config:max_steps=5",
			})
			if o.err != nil {
				t.Fatal(o.err)
			}
			checkRatchet(t, o, readLines(t, log+".advancer"), readLines(t, log+".certifier"))
		})
	}
}

// checkRatchet checks the ratchet invariants from the services' view.
func checkRatchet(t *testing.T, o outcome, adv, cert []map[string]any) {
	t.Helper()
	if len(adv) != 5 || len(cert) != 5 {
		t.Fatalf("advancer ran %d times, certifier %d; want 5 each (max_steps)", len(adv), len(cert))
	}
	result := decode(t, o.value).(map[string]any)["result"].([]any)
	prev := []any{}
	var certified, rejected []string
	for i := range adv {
		progress, _ := adv[i]["certified_progress"].([]any)
		if len(progress) < len(prev) || !reflect.DeepEqual(progress[:len(prev)], prev) {
			t.Errorf("round %d: certified progress %s does not extend %s", i+1, mustJSON(t, progress), mustJSON(t, prev))
		}
		prev = progress
		proposal := mustJSON(t, cert[i]["proposed_step"])
		if i+1 < len(adv) {
			next := mustJSON(t, adv[i+1]["certified_progress"])
			feedback := adv[i+1]["rejection_feedback"]
			if strings.Contains(next, proposal) {
				certified = append(certified, proposal)
				if feedback != nil {
					t.Errorf("round %d: feedback %s after a certification", i+2, mustJSON(t, feedback))
				}
			} else {
				rejected = append(rejected, proposal)
				if want := fmt.Sprintf(`"reason":"step %v does not say how it was checked"`, cert[i]["proposed_step"].(map[string]any)["step"]); !strings.Contains(mustJSON(t, feedback), want) {
					t.Errorf("round %d: rejection_feedback = %s, want the last rejection", i+2, mustJSON(t, feedback))
				}
			}
		}
	}
	all := mustJSON(t, result)
	for _, r := range rejected {
		if strings.Contains(all, r) {
			t.Errorf("rejected proposal %s was appended", r)
		}
	}
	if len(rejected) == 0 || len(certified) == 0 {
		t.Errorf("want both certified and rejected rounds; certified %v rejected %v", certified, rejected)
	}
	want := `[{"action":"write the changelog","checked":false,"step":1},` +
		`{"action":"tag the release","addresses":"step 2 does not say how it was checked","checked":true,"step":2},` +
		`{"action":"build the binaries","addresses":"step 3 does not say how it was checked","checked":true,"step":3}]`
	if all != want {
		t.Errorf("result = %s\nwant %s", all, want)
	}
}

func reliabilityFlags(t *testing.T, failCount int) []string {
	return []string{
		"slot:fetcher=" + execDemo(t, "flaky.sh"),
		"slot:drafter=" + execDemo(t, "drafter.sh"),
		"input:topic=api-status",
		fmt.Sprintf("input:fail_count=%d", failCount),
	}
}

func TestReliabilityFreshPath(t *testing.T) {
	o := runSpec(t, demo(t, "reliability.prose.md"), reliabilityFlags(t, 1))
	if o.err != nil {
		t.Fatal(o.err)
	}
	if want := "[ops] Draft article:\nFresh path: [ops] fetched payload for api-status"; o.value != want {
		t.Errorf("got %q, want %q", o.value, want)
	}
	if n := o.events.count("call.end", "fetcher"); n != 2 {
		t.Errorf("fetcher ran %d times, want 2", n)
	}
}

func TestReliabilityFallbackPath(t *testing.T) {
	o := runSpec(t, demo(t, "reliability.prose.md"), reliabilityFlags(t, 5))
	if o.err != nil {
		t.Fatal(o.err)
	}
	if want := "[ops] Draft article:\nFallback path: fallback for api-status"; o.value != want {
		t.Errorf("got %q, want %q", o.value, want)
	}
	if n := o.events.count("call.end", "fetcher"); n != 3 {
		t.Errorf("fetcher ran %d times, want 3 (retries 2)", n)
	}
	ends := o.traceOf("end")
	for _, r := range ends[:3] {
		if r["err"] == nil || r["slot"] != "fetcher" {
			t.Errorf("trace record %v: want a failed fetcher attempt", r)
		}
	}
}

func TestTimeoutIsNotRetried(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "calls")
	done := filepath.Join(t.TempDir(), "done")
	o := runSpec(t, demo(t, "fetch-timeout.prose.md"), []string{
		"slot:fetcher=" + execDemo(t, "sleeper.sh", "SLEEP=60", "SLEEPER_COUNTER="+counter, "SLEEPER_DONE="+done),
		"input:topic=api-status",
	})
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.value != "fallback for api-status" {
		t.Errorf("got %v, want the fallback", o.value)
	}
	if lines := readRaw(t, counter); len(lines) != 1 {
		t.Errorf("the service ran %d times, want exactly once: %q", len(lines), lines)
	}
	if _, err := os.Stat(done); err == nil {
		t.Error("the service slept to its end: the timeout did not stop it")
	}
	ends := o.traceOf("end")
	if len(ends) != 1 || ends[0]["kind"] != "timeout" {
		t.Errorf("trace call.end records: %v", ends)
	}
}

func TestAbortReportsAttempts(t *testing.T) {
	o := runSpec(t, demo(t, "fetch-abort.prose.md"), []string{
		"slot:fetcher=" + execDemo(t, "flaky.sh"),
		"input:topic=api-status",
		"input:fail_count=5",
	})
	var de *delegation.Error
	if !errors.As(o.err, &de) {
		t.Fatalf("err = %v, want a *delegation.Error", o.err)
	}
	msg := o.err.Error()
	for _, want := range []string{"fetch-abort.prose.md:31:15: ", "call 'fetcher' failed after 3 attempts", "transient failure 3 of 5"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if de.Attempts != 3 {
		t.Errorf("attempts = %d", de.Attempts)
	}
	end := o.traceOf("final")
	if len(end) != 1 || end[0]["status"] != "error" || !strings.Contains(fmt.Sprint(end[0]["err"]), "after 3 attempts") {
		t.Errorf("run.end = %v", end)
	}
}

// TestFanOutRunsInParallel: the 8 services of a list slot all run at once
// (each waits until all 8 have started before it answers), and the answers
// keep the workers' order.
func TestFanOutRunsInParallel(t *testing.T) {
	dir := t.TempDir()
	var flags []string
	for range 8 {
		flags = append(flags, "slot:workers="+execDemo(t, "barrier.sh", "BARRIER_DIR="+dir, "BARRIER_N=8"))
	}
	o := runSpec(t, demo(t, "fan-out-sleep.prose.md"), flags)
	if o.err != nil {
		t.Fatal(o.err)
	}
	got := decode(t, o.value).([]any)
	if len(got) != 8 {
		t.Fatalf("got %d answers", len(got))
	}
	for i, a := range got {
		m := a.(map[string]any)
		if slot := m["slot"]; slot != fmt.Sprintf("workers[%d]", i) {
			t.Errorf("answer %d from %v: order not kept", i, slot)
		}
		if met := m["met"]; met != float64(8) {
			t.Errorf("worker %d saw %v of 8 workers running, want all 8 at once", i, met)
		}
	}
}

func readRaw(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(raw))
}
