package patterns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/delegation"
)

// Progress is a delegation.Recorder that tells a person on stderr what a
// run is doing. Verbose (a terminal) prints one line per call attempt
// (call id, service, attempt, outcome, duration) and per model judgment;
// otherwise only failed attempts are printed, so logs stay short. Summary
// prints the totals at the end. It is safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	verbose bool
	totals  Totals
}

// NewProgress returns a Progress writing to w.
func NewProgress(w io.Writer, verbose bool) *Progress {
	return &Progress{w: w, verbose: verbose}
}

// Record implements delegation.Recorder.
func (p *Progress) Record(ev *delegation.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.totals.add(ev)
	switch ev.Kind {
	case "call.end":
		if ev.Err != nil && errors.Is(ev.Err, context.Canceled) {
			break // the run is being interrupted: the summary says so
		}
		if ev.Err != nil {
			fmt.Fprintf(p.w, "prose: %s %s attempt %d failed after %s: %s\n",
				ev.ID, ev.Slot, ev.Attempt, roundDuration(ev.Duration), firstLine(ev.Err.Error()))
		} else if p.verbose {
			fmt.Fprintf(p.w, "prose: %s %s attempt %d ok in %s\n", ev.ID, ev.Slot, ev.Attempt, roundDuration(ev.Duration))
		}
	case "judgment":
		if v := ev.Verdict; p.verbose && v != nil && v.Asked {
			fmt.Fprintf(p.w, "prose: %s judged %q: %v (%s, %s)\n", ev.ID, ev.Condition, v.Holds, v.Model, roundDuration(ev.Duration))
		}
	}
}

// Totals returns what the progress has counted so far.
func (p *Progress) Totals() Totals {
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
	fmt.Fprintf(p.w, "prose: %s in %s: %s", status, roundDuration(elapsed), plural(t.Calls, "call"))
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
		if t.TokensIn+t.TokensOut > 0 {
			fmt.Fprintf(p.w, ", %d judge tokens in, %d out", t.TokensIn, t.TokensOut)
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

// firstLine squeezes an error message onto one line of at most 200
// bytes, keeping its end (a program's last stderr lines say the most).
func firstLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		head, _, _ := strings.Cut(s, ": ")
		if len(head) > 60 {
			head = head[:60]
		}
		s = head + ": ..." + s[len(s)-(190-len(head)):]
	}
	return s
}

// Recorders fans events out to several recorders (nil ones are skipped).
type Recorders []delegation.Recorder

// Record implements delegation.Recorder.
func (rs Recorders) Record(ev *delegation.Event) {
	for _, r := range rs {
		if r != nil {
			r.Record(ev)
		}
	}
}
