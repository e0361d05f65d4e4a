package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
)

func progressEvents(p *Progress) {
	ok := &delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L12/1"), Slot: "advancer", Attempt: 1, Duration: 1234567 * time.Nanosecond}
	bad := &delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L12/2"), Slot: "advancer", Attempt: 2, Duration: 2 * time.Second,
		Err: errors.New("exit status 1: first line\nsecond line")}
	canceled := &delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L12/3"), Slot: "advancer", Attempt: 1,
		Err: fmt.Errorf("canceled: %w", context.Canceled)}
	judged := &delegation.Event{Kind: "judgment", Path: delegation.MustParsePath("L20"), Condition: "verdict looks fine", Duration: time.Second,
		Verdict: &delegation.Verdict{Holds: true, Asked: true, Model: "m1", TokensIn: 30, TokensOut: 4}}
	rule := &delegation.Event{Kind: "judgment", Path: delegation.MustParsePath("L21"), Condition: "verdict certifies it", Verdict: &delegation.Verdict{Holds: false, Rule: "structured-verdict"}}
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

// TestFirstLineCutsBetweenWords: a long message is cut between words,
// never mid-word, and keeps the clause that says what to do.
func TestFirstLineCutsBetweenWords(t *testing.T) {
	msgs := []string{
		`call 'reviewer' failed: not found at http://127.0.0.1:41234/v1 (404): unknown model "llama-3.2-3b-instruct-q4" or wrong base URL; check --model/PROSE_MODEL and --base-url/OPENAI_BASE_URL (OpenAI-compatible servers end in /v1, e.g. http://localhost:11434/v1)`,
		`the model server at http://127.0.0.1:41234/v1 rejected the request for model "tiny" (400): this model's maximum context length is 2048 tokens, but the request has 9000; raise the server's context size or lower PROSE_MAX_VALUE_BYTES`,
		"exit status 1: " + strings.Repeat("a line of stderr output from the service ", 12) + "the real cause",
		strings.Repeat("averyveryverylongwordwithoutanyspaces", 10),
	}
	for i, m := range msgs {
		got := firstLine(m)
		if len(got) > 210 || !utf8.ValidString(got) {
			t.Errorf("%d bytes: %q", len(got), got)
		}
		if i == len(msgs)-1 {
			continue // one word longer than a line is cut where it must be
		}
		words := map[string]bool{}
		for _, w := range strings.Fields(m) {
			words[w] = true
		}
		for _, w := range strings.Fields(strings.ReplaceAll(got, "...", " ")) {
			if !words[w] && w != ";" {
				t.Errorf("%q is cut mid-word: %q\nin %q", w, got, m)
			}
		}
	}
	if got := firstLine(msgs[0]); !strings.Contains(got, "; check --model/PROSE_MODEL and --base-url/OPENAI_BASE_URL") ||
		!strings.HasPrefix(got, "call 'reviewer' failed: ") {
		t.Errorf("the advice is lost: %q", got)
	}
	if got := firstLine(msgs[1]); !strings.HasSuffix(got, "; raise the server's context size or lower PROSE_MAX_VALUE_BYTES") {
		t.Errorf("the advice is lost: %q", got)
	}
	if got := firstLine(msgs[2]); !strings.HasSuffix(got, "the real cause") {
		t.Errorf("the end is lost: %q", got)
	}
}

// TestProgressStatusLine: while calls run, one status line names the
// longest-running call, its attempt and elapsed time; any other line
// first erases it, and it goes when no call runs.
func TestProgressStatusLine(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true)
	p.live = true
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.Record(&delegation.Event{Kind: "call.start", Time: t0, Path: delegation.MustParsePath("L3"), Slot: "reviewer", Attempt: 2})
	p.Record(&delegation.Event{Kind: "call.start", Time: t0.Add(time.Second), Path: delegation.MustParsePath("L4/1"), Slot: "writer", Attempt: 1})
	p.drawStatus(t0.Add(3500 * time.Millisecond))
	if got, want := b.String(), "\r\x1b[Kprose: reviewer attempt 2 running for 3s (1 more running)"; got != want {
		t.Fatalf("status line %q, want %q", got, want)
	}
	b.Reset()
	p.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L3"), Slot: "reviewer", Attempt: 2, Duration: 4 * time.Second, Err: errors.New("exit status 1")})
	if got := b.String(); !strings.HasPrefix(got, "\r\x1b[Kprose: L3 reviewer attempt 2 failed after 4s") {
		t.Fatalf("a failure line does not erase the status line first: %q", got)
	}
	b.Reset()
	p.drawStatus(t0.Add(5 * time.Second))
	if got := b.String(); got != "\r\x1b[Kprose: writer attempt 1 running for 4s" {
		t.Fatalf("status line %q", got)
	}
	b.Reset()
	p.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L4/1"), Slot: "writer", Attempt: 1, Duration: time.Second})
	p.drawStatus(t0.Add(6 * time.Second))
	if got := b.String(); strings.Contains(got, "running") || strings.Count(got, "\r\x1b[K") != 1 {
		t.Fatalf("after the last call: %q", got)
	}
}

// TestProgressNotOnTerminal: written to a pipe or file, progress has no
// status line and no escape codes, and Start does nothing.
func TestProgressNotOnTerminal(t *testing.T) {
	var b bytes.Buffer
	p := NewTerminalProgress(&b, func(string) string { return "" })
	stop := p.Start()
	p.Record(&delegation.Event{Kind: "call.start", Time: time.Now(), Path: delegation.MustParsePath("L3"), Slot: "reviewer", Attempt: 1})
	p.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L3"), Slot: "reviewer", Attempt: 1, Err: errors.New("boom")})
	p.Summary(time.Second, "failed")
	stop()
	if strings.ContainsAny(b.String(), "\r\x1b") {
		t.Errorf("escape codes in a log: %q", b.String())
	}
}

// TestColor: colour only on a terminal (a character device here), never
// with NO_COLOR set or TERM=dumb; failures and the summary are painted.
func TestColor(t *testing.T) {
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	if !ColorEnabled(dev, env(nil)) {
		t.Errorf("no colour on a character device")
	}
	if ColorEnabled(dev, env(map[string]string{"NO_COLOR": "1"})) || ColorEnabled(dev, env(map[string]string{"TERM": "dumb"})) {
		t.Errorf("colour despite NO_COLOR or TERM=dumb")
	}
	if ColorEnabled(&bytes.Buffer{}, env(nil)) {
		t.Errorf("colour in a buffer")
	}
	var b bytes.Buffer
	p := NewProgress(&b, true)
	p.color = true
	p.Record(&delegation.Event{Kind: "call.end", Path: delegation.MustParsePath("L3"), Slot: "reviewer", Attempt: 1, Err: errors.New("boom")})
	p.Summary(time.Second, "failed")
	if got := b.String(); !strings.Contains(got, "attempt 1 \x1b[31mfailed\x1b[0m after") || !strings.Contains(got, "prose: \x1b[1;31mfailed\x1b[0m in 1s") {
		t.Errorf("got %q", got)
	}
	// The severity is coloured from the structure: a message that quotes
	// another diagnostic (": error: " in its text) keeps its words.
	l := diag.List{
		{Position: diag.Position{File: "a.md", Line: 1, Col: 2}, Severity: diag.Error, Code: "c/x", Message: "x"},
		{Position: diag.Position{File: "a.md", Line: 3, Col: 4}, Severity: diag.Warning, Code: "c/y", Message: "the program said: b.md:1:1: error: z"},
	}
	var colored, plain bytes.Buffer
	writeDiagnostics(&colored, l, true)
	writeDiagnostics(&plain, l, false)
	if got, want := colored.String(), "a.md:1:2: \x1b[1;31merror\x1b[0m: x [c/x]\na.md:3:4: \x1b[33mwarning\x1b[0m: the program said: b.md:1:1: error: z [c/y]\n"; got != want {
		t.Errorf("coloured diagnostics:\n%q, want\n%q", got, want)
	}
	if plain.String() != l.String() {
		t.Errorf("plain diagnostics %q, want diag.List.String %q", plain.String(), l.String())
	}
}
