package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/lintcli"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/runhost"
)

// Progress is a delegation.Recorder that tells a person on stderr what a
// run is doing. Verbose (a terminal) prints one line per call attempt
// (call id, service, attempt, outcome, duration) and per model judgment;
// otherwise only failed attempts are printed, so logs stay short. Summary
// prints the totals at the end. It is safe for concurrent use.
//
// On a terminal (NewTerminalProgress) it also keeps one status line
// under the others while calls run, redrawn in place each second: the
// longest-running call's service, attempt and elapsed time, and how many
// more are running (Start). Failures and the summary are coloured there,
// unless NO_COLOR is set or TERM is dumb. Written to a file or a pipe it
// adds neither: no status line, no escape codes.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	verbose bool
	totals  runhost.Totals

	color  bool                           // colour failures and the summary
	live   bool                           // keep a status line (Start)
	active map[delegation.Path]activeCall // running attempts, by the path of each attempt
	shown  bool                           // a status line is on the screen
}

// activeCall is one running attempt, for the status line.
type activeCall struct {
	slot    string
	attempt int
	start   time.Time
}

// NewTerminalProgress returns the Progress for a person at w: verbose,
// coloured (see ColorEnabled) and with a status line when w is a
// terminal; the short log form otherwise.
func NewTerminalProgress(w io.Writer, getenv func(string) string) *Progress {
	term := IsTerminal(w)
	p := NewProgress(w, term)
	p.color = term && ColorEnabled(w, getenv)
	p.live = term
	return p
}

// ColorEnabled reports whether output to w may be coloured (see
// lintcli.ColorEnabled).
func ColorEnabled(w io.Writer, getenv func(string) string) bool {
	return lintcli.ColorEnabled(w, getenv)
}

// Start begins redrawing the status line each second while calls run; the
// returned function stops it and clears the line. On a Progress without
// a status line it does nothing.
func (p *Progress) Start() (stop func()) {
	if !p.live {
		return func() {}
	}
	tick := time.NewTicker(time.Second)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case now := <-tick.C:
				p.mu.Lock()
				p.drawStatus(now)
				p.mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	return func() {
		tick.Stop()
		close(done)
		<-finished
		p.mu.Lock()
		p.clearStatus()
		p.mu.Unlock()
	}
}

// track keeps the running attempts for the status line; p.mu is held.
func (p *Progress) track(ev *delegation.Event) {
	if !p.live {
		return
	}
	key := ev.Path.Try(ev.Attempt)
	switch ev.Kind {
	case delegation.EventCallStart:
		if p.active == nil {
			p.active = map[delegation.Path]activeCall{}
		}
		start := ev.Time
		if start.IsZero() {
			start = time.Now()
		}
		p.active[key] = activeCall{slot: ev.Slot, attempt: ev.Attempt, start: start}
	case delegation.EventCallEnd:
		delete(p.active, key)
	}
}

// drawStatus redraws the status line for now; p.mu is held.
func (p *Progress) drawStatus(now time.Time) {
	if len(p.active) == 0 {
		p.clearStatus()
		return
	}
	var oldest activeCall
	for _, c := range p.active {
		if oldest.start.IsZero() || c.start.Before(oldest.start) {
			oldest = c
		}
	}
	if now.Sub(oldest.start) < time.Second {
		return // quick calls come and go without a status line
	}
	line := fmt.Sprintf("prose: %s attempt %d running for %s", oldest.slot, oldest.attempt, now.Sub(oldest.start).Truncate(time.Second))
	if n := len(p.active) - 1; n > 0 {
		line += fmt.Sprintf(" (%d more running)", n)
	}
	fmt.Fprint(p.w, "\r\x1b[K"+wordPrefix(line, 79))
	p.shown = true
}

// clearStatus erases the status line, so that a line printed next starts
// at the left margin of an empty line; p.mu is held.
func (p *Progress) clearStatus() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// paint wraps s in the ANSI colour code when colour is on.
func (p *Progress) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Colour codes.
const (
	red    = "31"
	green  = "32"
	yellow = "33"
	bold   = "1"
)

// Diagnostics prints diagnostics (a spec's warnings), coloured where the
// progress is.
func (p *Progress) Diagnostics(l diag.List) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(l) == 0 {
		return
	}
	p.clearStatus()
	writeDiagnostics(p.w, l, p.color)
}

// writeDiagnostics prints l one "FILE:LINE:COL: SEVERITY: MESSAGE [CODE]"
// line each, the severity coloured when color is set (see
// lintcli.WriteDiagnostics).
func writeDiagnostics(w io.Writer, l diag.List, color bool) error {
	return lintcli.WriteDiagnostics(w, l, color)
}

// notices prints what a run tells (run.Notice) on w: the spec's warnings
// unless quiet (through diags when set: a terminal colours them), the run
// id line even when quiet (it is what resume needs), a remote run's start
// (unless quiet) and cancellation, the journal's warnings and failures.
func notices(w io.Writer, quiet bool, diags func(diag.List)) func(run.Notice) {
	return func(n run.Notice) {
		switch {
		case n.Warnings != nil && quiet:
		case n.Warnings != nil && diags != nil:
			diags(n.Warnings)
		case n.Warnings != nil:
			writeDiagnostics(w, n.Warnings, false)
		case n.Journal != nil:
			fmt.Fprintf(w, "prose: run %s (%s)\n", n.Journal.RunID, describeJournal(n.Journal))
		case n.Remote != nil && n.Remote.Canceled:
			fmt.Fprintf(w, "prose: cancelled run %s\n", n.Remote.ID)
		case n.Remote != nil && quiet:
		case n.Remote != nil && n.Remote.Attached:
			fmt.Fprintf(w, "prose: run %s was already running on %s; waiting for its result\n", n.Remote.ID, n.Remote.Engine)
		case n.Remote != nil:
			fmt.Fprintf(w, "prose: run %s started on %s (task queue %s); prose result %s waits for it\n", n.Remote.ID, n.Remote.Engine, n.Remote.Queue, n.Remote.ID)
		case n.Warning != nil:
			fmt.Fprintf(w, "prose: warning: %v\n", n.Warning)
		case n.Err != nil:
			fmt.Fprintf(w, "prose: %v\n", n.Err)
		}
	}
}

// describeJournal says how the run uses its journal, for the run id line.
func describeJournal(j *run.JournalNotice) string {
	switch j.Mode {
	case journal.Resuming:
		return "resuming; journal " + j.Path
	case journal.Replaying:
		return "replaying from " + j.Path
	}
	return "journal " + j.Path
}

// NewProgress returns a Progress writing to w.
func NewProgress(w io.Writer, verbose bool) *Progress {
	return &Progress{w: w, verbose: verbose}
}

// Record implements delegation.Recorder.
func (p *Progress) Record(ev *delegation.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.totals.Add(ev)
	p.track(ev)
	switch ev.Kind {
	case delegation.EventCallEnd:
		if ev.Err != nil && errors.Is(ev.Err, context.Canceled) {
			break // the run is being interrupted: the summary says so
		}
		if ev.Err != nil {
			p.clearStatus()
			fmt.Fprintf(p.w, "prose: %s %s attempt %d %s after %s: %s\n",
				ev.Path, ev.Slot, ev.Attempt, p.paint(red, "failed"), roundDuration(ev.Duration), firstLine(ev.Err.Error()))
		} else if p.verbose {
			p.clearStatus()
			fmt.Fprintf(p.w, "prose: %s %s attempt %d ok in %s\n", ev.Path, ev.Slot, ev.Attempt, roundDuration(ev.Duration))
		}
	case delegation.EventJudgment:
		if v := ev.Verdict; p.verbose && v != nil && v.Asked {
			p.clearStatus()
			var answer any = v.Holds
			if v.Pick != "" {
				answer = fmt.Sprintf("picked %q", v.Pick)
			}
			fmt.Fprintf(p.w, "prose: %s judged %q: %v (%s, %s)\n", ev.Path, ev.Condition, answer, v.Model, roundDuration(ev.Duration))
		}
	}
}

// Totals returns what the progress has counted so far.
func (p *Progress) Totals() runhost.Totals {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.totals
}

// Summary prints the run's totals: calls, failures, judgments (and how
// many a model answered, with tokens), elapsed time.

func (p *Progress) Summary(elapsed time.Duration, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.totals
	p.clearStatus()
	shown := status
	switch {
	case status == "ok":
		shown = p.paint(green, status)
	case status != "":
		shown = p.paint(bold+";"+red, status)
	}
	fmt.Fprintf(p.w, "prose: %s in %s: %s", shown, roundDuration(elapsed), plural(t.Calls, "call"))
	switch {
	case t.Failed > 0 && t.Canceled > 0:
		fmt.Fprintf(p.w, " (%d failed, %d canceled)", t.Failed, t.Canceled)
	case t.Failed > 0:
		fmt.Fprintf(p.w, " (%d failed)", t.Failed)
	case t.Canceled > 0:
		fmt.Fprintf(p.w, " (%d canceled)", t.Canceled)
	}
	if t.Judgments > 0 {
		fmt.Fprintf(p.w, ", %s (%d by a model, %d without", plural(t.Judgments, "judgment"), t.ModelJudgments, t.DecidedJudgments)
		if t.CachedJudgments > 0 {
			fmt.Fprintf(p.w, ", %d cached", t.CachedJudgments)
		}
		if t.JudgeTokensIn+t.JudgeTokensOut > 0 {
			fmt.Fprintf(p.w, ", %d judge tokens in, %d out", t.JudgeTokensIn, t.JudgeTokensOut)
		}
		fmt.Fprint(p.w, ")")
	}
	fmt.Fprintln(p.w)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// firstLine squeezes an error message onto one line of at most about
// 200 bytes, cut only between words, with "..." where text was left out.
// A long message keeps its first clause (up to ": ", what failed); then,
// when it ends in advice after "; " ("; check --model/PROSE_MODEL ..."),
// as much of the start as fits before that advice; otherwise its end (a
// program's last stderr lines say the most).
func firstLine(s string) string { return squeeze(s, 200) }

func squeeze(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	var head, body string
	if i := strings.Index(s, ": "); i >= 0 && i < 60 {
		head, body = s[:i+2], s[i+2:]
	} else {
		head = wordPrefix(s, 60) + " "
		body = strings.TrimPrefix(s[len(head)-1:], " ")
	}
	fix := ""
	if i := strings.LastIndex(body, "; "); i >= 0 {
		body, fix = body[:i], body[i:]
	}
	room := max - len(head) - len("...")
	if len(fix) > room-20 {
		// The advice alone is too long: keep its start, which names the
		// fix, and drop its end (examples, parentheses).
		fix = wordPrefix(fix, room-20-len(" ...")) + " ..."
	}
	switch {
	case len(body)+len(fix) <= room+len("..."):
		return head + body + fix
	case fix != "":
		// What failed, then what to do.
		return head + wordPrefix(body, room-len(fix)-1) + " ..." + fix
	}
	return head + "..." + wordSuffix(body, room)
}

// wordPrefix is the longest start of s, at most n bytes, that ends
// between words (or at a character boundary when one word is longer).
func wordPrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n+1], ' '); i > 0 {
		return s[:i]
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// wordSuffix is the longest end of s, at most n bytes, that starts
// between words (or at a character boundary when one word is longer).
func wordSuffix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	start := len(s) - n
	if i := strings.IndexByte(s[start-1:], ' '); i >= 0 && start+i < len(s) {
		return s[start+i:]
	}
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

// IsTerminal reports whether w is a terminal (see lintcli.IsTerminal).
func IsTerminal(w io.Writer) bool { return lintcli.IsTerminal(w) }
