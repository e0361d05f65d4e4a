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
// log line before the JSON, plain text, a missing field or a field of
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
			`slot reviewer, whose ensures declares {accepted: boolean, notes: string}: got text, not an object: "reviewing draft...`, true},
		{"plain text", `echo 'looks good to me'`, "", `got text, not an object`, true},
		{"missing field", `echo '{"accepted": true}'`, "", `the answer has no "notes": {"accepted":true}`, true},
		{"wrong type", `echo '{"accepted": "yes", "notes": ""}'`, "", `its "accepted" is "yes", not boolean`, true},
		{"fallback", `echo 'looks good'`, "\n  on_fail use { accepted: false, notes: \"no review\" }", `"held"`, false},
		// the first attempt prints a log line, the second is well formed
		{"retried", `if [ -e tried ]; then echo '{"accepted": true, "notes": "ok"}'; else touch tried; echo 'starting'; fi`, "\n  retries 1", `"shipped"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := runSpec(t, writeReview(t, tt.retry), []string{"slot:reviewer=exec:" + tt.program})
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
