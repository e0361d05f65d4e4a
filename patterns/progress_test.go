package patterns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

func progressEvents(p *Progress) {
	ok := &delegation.Event{Kind: "call.end", ID: "L12/1", Slot: "advancer", Attempt: 1, Duration: 1234567 * time.Nanosecond}
	bad := &delegation.Event{Kind: "call.end", ID: "L12/2", Slot: "advancer", Attempt: 2, Duration: 2 * time.Second,
		Err: errors.New("exit status 1: first line\nsecond line")}
	canceled := &delegation.Event{Kind: "call.end", ID: "L12/3", Slot: "advancer", Attempt: 1,
		Err: fmt.Errorf("canceled: %w", context.Canceled)}
	judged := &delegation.Event{Kind: "judgment", ID: "L20", Condition: "verdict looks fine", Duration: time.Second,
		Verdict: &delegation.Verdict{Holds: true, Asked: true, Model: "m1", TokensIn: 30, TokensOut: 4}}
	rule := &delegation.Event{Kind: "judgment", ID: "L21", Condition: "verdict certifies it", Verdict: &delegation.Verdict{Holds: false, Rule: "structured-verdict"}}
	for _, ev := range []*delegation.Event{ok, bad, canceled, judged, rule} {
		p.Record(ev)
	}
	p.Summary(3*time.Second, "ok")
}

func TestProgressOnTerminal(t *testing.T) {
	var b bytes.Buffer
	progressEvents(NewProgress(&b, true))
	want := `prose: L12/1 advancer attempt 1 ok in 1.2ms
prose: L12/2 advancer attempt 2 failed after 2s: exit status 1: first line second line
prose: L20 judged "verdict looks fine": true (m1, 1s)
prose: ok in 3s: 3 calls (1 failed, 1 canceled), 2 judgments (1 by a model, 1 without, 30 judge tokens in, 4 out)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestProgressInLogs(t *testing.T) {
	var b bytes.Buffer
	progressEvents(NewProgress(&b, false))
	got := b.String()
	if strings.Contains(got, " ok in 1.2ms") || strings.Contains(got, "judged") || strings.Contains(got, "L12/3") {
		t.Errorf("a log gets failures and the summary only:\n%s", got)
	}
	if !strings.Contains(got, "L12/2 advancer attempt 2 failed") || !strings.Contains(got, "prose: ok in 3s") {
		t.Errorf("missing lines:\n%s", got)
	}
}

func TestFirstLineKeepsTheEnd(t *testing.T) {
	long := "exit status 1: " + strings.Repeat("noise ", 100) + "the real cause"
	got := firstLine(long)
	if len(got) > 210 || !strings.HasPrefix(got, "exit status 1: ...") || !strings.HasSuffix(got, "the real cause") {
		t.Errorf("got %q", got)
	}
}
