package runhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// reviewSpec is a pattern whose reviewer's ensures declares its fields;
// RETRY and FALLBACK are replaced per case.
const reviewSpec = "---\nname: review\nkind: pattern\n---\n\n# Review\n\nShips what a reviewer accepts.\n\n" +
	"### Slots\n\n- `reviewer`\n  - ensures: a verdict `{accepted: boolean, notes: string}`\n\n" +
	"### Delegation\n\n```prose\nlet review = call reviewer\n  draft: \"d\"RETRY\nif review.accepted:\n  return \"shipped\"\nreturn \"held\"\n```\n"

func writeReview(t *testing.T, retry string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "review.prose.md")
	if err := os.WriteFile(p, []byte(strings.Replace(reviewSpec, "RETRY", retry, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A slot's answer is checked against the fields its ensures declares: a
// log line before the JSON (refused as the program's output is read),
// plain text, a missing field or a field of
// another type is an error of that attempt, naming the slot, the field and
// what came back; the call's retries and on_fail apply to it. An answer
// of the declared shape goes through unchanged.
func TestSlotAnswersCheckedAgainstEnsures(t *testing.T) {
	for _, tt := range []struct {
		name, program, retry string
		want                 string // the value, or an error's text
		failed               bool
	}{
		{"json", `echo '{"accepted": true, "notes": "ok"}'`, "", `"shipped"`, false},
		{"log line before JSON", `echo 'reviewing draft...'; echo '{"accepted": true, "notes": "ok"}'`, "",
			`the output of reviewer is text followed by JSON ("reviewing draft...", then the JSON from line 2): print log lines to stderr`, true},
		{"plain text", `echo 'looks good to me'`, "",
			`slot reviewer, whose ensures (REVIEWPATH:13:14) declares {accepted: boolean, notes: string}: got text, not an object: "looks good to me"`, true},
		{"missing field", `echo '{"accepted": true}'`, "", `the answer has no "notes": {"accepted":true}`, true},
		{"wrong type", `echo '{"accepted": "yes", "notes": ""}'`, "", `its "accepted" is "yes", not boolean`, true},
		{"fallback", `echo 'looks good'`, "\n  on_fail use { accepted: false, notes: \"no review\" }", `"held"`, false},
		// the first attempt prints a log line, the second is well formed
		{"retried", `if [ -e tried ]; then echo '{"accepted": true, "notes": "ok"}'; else touch tried; echo 'starting'; fi`, "\n  retries 1", `"shipped"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := writeReview(t, tt.retry)
			tt.want = strings.Replace(tt.want, "REVIEWPATH", p, 1)
			o := runSpec(t, p, []string{"slot:reviewer=exec:" + tt.program})
			if tt.failed {
				if o.err == nil || !strings.Contains(o.err.Error(), tt.want) {
					t.Fatalf("value %v, err %v; want an error with %q", o.value, o.err, tt.want)
				}
				if !strings.Contains(o.err.Error(), "call 'reviewer' failed after 1 attempt") {
					t.Errorf("err %v: want the failure counted as the call's attempt", o.err)
				}
				return
			}
			if o.err != nil {
				t.Fatal(o.err)
			}
			got, _ := delegation.ToJSON(o.value)
			if string(got) != tt.want {
				t.Fatalf("value %s, want %s", got, tt.want)
			}
			if tt.name == "retried" && o.events.count("call.start", "reviewer") != 2 {
				t.Errorf("%d attempts, want 2", o.events.count("call.start", "reviewer"))
			}
		})
	}
}

// A slot whose ensures and requires are written as code spans with their
// types has its answer and its arguments checked as the braces form's
// are: an argument of another type fails the call before the program
// runs; one of the declared type, or left out, goes through.
func TestSlotArgumentsAndSpanFieldsChecked(t *testing.T) {
	src := "---\nname: score\nkind: pattern\n---\n\n# Score\n\nScores a draft.\n\n" +
		"### Slots\n\n- `critic`\n  - requires: `draft` (string) and `round` (integer)\n  - ensures: returns `score` (number) and `verdict` (string)\n\n" +
		"### Requires\n\n- Pattern instance receives:\n    given: any -- the round, as it arrives\n\n" +
		"### Delegation\n\n```prose\nlet c = call critic\n  draft: \"d\"\n  round: given\nreturn c.score\n```\n"
	// the round arrives as an input lint cannot type (a literal of
	// another type is a lint error: TestSlotRequiresTypesLiteralArguments)
	for _, tt := range []struct {
		round, program, want string
	}{
		{"1", `echo '{"score": 0.5, "verdict": "ok"}'`, `0.5`},
		{"1", `echo '{"score": "high", "verdict": "ok"}'`, `its "score" is "high", not number`},
		{"1", `echo '{"score": 0.5}'`, `the answer has no "verdict"`},
		{`"1"`, `touch MARK; echo '{"score": 0.5, "verdict": "ok"}'`, `slot critic, whose requires declares {draft: string, round: integer}: the argument round is "1", not integer`},
		{"null", `echo '{"score": 0.5, "verdict": "ok"}'`, `0.5`},
	} {
		dir := t.TempDir()
		mark := filepath.Join(dir, "ran")
		p := filepath.Join(dir, "score.prose.md")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runSpec(t, p, []string{"slot:critic=exec:" + strings.Replace(tt.program, "MARK", mark, 1), `json:{"given": ` + tt.round + `}`})
		got, _ := delegation.ToJSON(o.value)
		if o.err != nil {
			got = []byte(o.err.Error())
		}
		if !strings.Contains(string(got), tt.want) {
			t.Errorf("round %s, %s: got %s, want %q", tt.round, tt.program, got, tt.want)
		}
		if _, err := os.Stat(mark); err == nil && strings.HasPrefix(tt.round, `"`) {
			t.Errorf("round %s: the program ran with an argument of another type", tt.round)
		}
	}
}

// An argument that does not fit the slot's requires fails the call at
// its first attempt, whatever its retries: every attempt would send the
// same argument. An answer failing the ensures is retried, and the error
// names the ensures line as well as the call.
func TestSlotRequiresFailureNotRetriedEnsuresNamed(t *testing.T) {
	src := "---\nname: score\nkind: pattern\n---\n\n# Score\n\nScores a draft.\n\n" +
		"### Slots\n\n- `critic`\n  - requires: `round` (integer)\n  - ensures: returns `score` (number)\n\n" +
		"### Requires\n\n- Pattern instance receives:\n    given: any -- the round, as it arrives\n\n" +
		"### Delegation\n\n```prose\nlet c = call critic\n  round: given\n  retries 2\nreturn c.score\n```\n"
	for _, tt := range []struct {
		round, program string
		attempts       int
		want           []string
	}{
		{`"1"`, `echo '{"score": 0.5}'`, 1, []string{"score.prose.md:24:9: call 'critic'", "failed after 1 attempt:", `the argument round is "1", not integer`}},
		{"1", `echo '{"score": "high"}'`, 3, []string{"score.prose.md:24:9: call 'critic'", "failed after 3 attempts:", "score.prose.md:14:14) declares {score: number}"}},
	} {
		p := filepath.Join(t.TempDir(), "score.prose.md")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runSpec(t, p, []string{"slot:critic=exec:" + tt.program, `json:{"given": ` + tt.round + `}`})
		if o.err == nil {
			t.Fatalf("round %s: value %v, want an error", tt.round, o.value)
		}
		for _, w := range tt.want {
			if !strings.Contains(o.err.Error(), w) {
				t.Errorf("round %s: err %v, want %q", tt.round, o.err, w)
			}
		}
		if n := o.events.count("call.end", "critic"); n != tt.attempts {
			t.Errorf("round %s: %d attempts, want %d", tt.round, n, tt.attempts)
		}
	}
}
