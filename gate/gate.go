// Package gate answers the gates of a local run: `ask_user "QUESTION"`
// and `gate {...}` in an Execution or a Delegation ask a person, and the
// run goes on with the answer.
//
// Local is the delegation.Gater of a run on this machine. It answers a
// gate from the journal when `prose answer` recorded an answer (journal.Answer);
// takes the timeout (ErrGateTimeout, so `on_fail use VALUE` gives the
// value) when the gate's timeout has passed since it was first asked, by
// the clock it is given; asks in place when it has a Prompt (a terminal);
// and otherwise returns a *delegation.WaitingError: the run suspends,
// journaled, and `prose run` exits 3 saying how to answer (Instructions).
//
// Decisions. A gate's timeout runs from the time it was first asked, as
// the journal records it, across sessions: a resume after the deadline
// takes the fallback even if nobody resumed in between, and journal.Answer
// refuses an answer that comes after it. An answer recorded before the
// deadline is taken whenever the resume comes. ask_user's answer is a
// string; gate's is any JSON value, or, when its question lists
// `options` or `fields`, an object of them (Shape, answer.go), the same
// whoever answers.
package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
)

// Local answers the gates of one local run.
type Local struct {
	// States reads what the run's journal holds of a gate
	// (journal.Run.GateState); nil: the run has no journal, so a gate
	// cannot wait.
	States func(delegation.Path) (delegation.GateState, bool, error)
	// Now is the clock a gate's timeout is measured by (nil: time.Now).
	Now func() time.Time
	// Prompt, when set, asks the question in place (a terminal) and
	// returns the answer's JSON.
	Prompt func(ctx context.Context, q Question) (json.RawMessage, error)
}

// Question is a gate as a person is asked it.
type Question struct {
	Path     delegation.Path
	Kind     string // ask_user or gate
	Question delegation.Value
	Deadline time.Time // zero: no timeout
	// Left is how long remains until Deadline, by the run's gate clock
	// (0: no timeout): a prompt waits at most that long.
	Left time.Duration
}

// Gate implements delegation.Gater.
func (l *Local) Gate(ctx context.Context, req *delegation.CallRequest, g *delegation.Gate) (delegation.Value, error) {
	var st delegation.GateState
	var known bool
	if l.States != nil {
		var err error
		if st, known, err = l.States(req.Path); err != nil {
			return nil, err
		}
	}
	if known && st.Answer != nil {
		return decode(g, st.Answer)
	}
	now := l.now()
	asked := now
	if known && !st.Asked.IsZero() {
		asked = st.Asked
	}
	var deadline time.Time
	if g.Timeout > 0 {
		deadline = asked.Add(g.Timeout)
		if !now.Before(deadline) {
			return nil, fmt.Errorf("%w (asked %s, timeout %s)", delegation.ErrGateTimeout, asked.UTC().Format(time.RFC3339), g.Timeout)
		}
	}
	q := Question{Path: req.Path, Kind: g.Kind, Question: g.Question, Deadline: deadline}
	if !deadline.IsZero() {
		q.Left = deadline.Sub(now)
	}
	if l.Prompt != nil {
		raw, err := l.Prompt(ctx, q)
		switch {
		case err == nil:
			return decode(g, raw)
		case !errors.Is(err, ErrNoAnswer):
			return nil, err
		}
	}
	if l.States == nil {
		return nil, fmt.Errorf("%s cannot wait for an answer in a run without a journal (run it without --no-journal, or on a terminal)", g.Kind)
	}
	return nil, &delegation.WaitingError{Path: req.Path, Pos: req.Pos, Kind: g.Kind, Question: g.Question, Asked: asked, Deadline: deadline}
}

func (l *Local) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// decode is an answer's JSON as the gate's value, shaped and checked
// against the gate's options and fields (Shape) wherever it came from.
func decode(g *delegation.Gate, raw json.RawMessage) (delegation.Value, error) {
	shaped, err := Shape(g.Kind, g.Question, raw)
	if err != nil {
		return nil, err
	}
	return delegation.FromJSON(shaped)
}

// Instructions is what a person reads when a run waits at gate w: the
// question, and the commands that answer it and go on (flags, such as
// " --run-dir DIR", follow each command).
func Instructions(runID, flags string, w *delegation.WaitingError) string {
	var b strings.Builder
	q := delegation.Text(w.Question)
	if _, isText := w.Question.(string); !isText {
		if raw, err := delegation.ToJSON(w.Question); err == nil {
			q = string(raw)
		}
	}
	fmt.Fprintf(&b, "prose: run %s waits at %s %s (%s): %s\n", runID, w.Kind, w.Path.Key(), w.Pos, q)
	if !w.Deadline.IsZero() {
		fmt.Fprintf(&b, "  it times out at %s; a resume after that takes the gate's fallback\n", w.Deadline.UTC().Format(time.RFC3339))
	}
	if opts := options(w.Question); w.Kind == "ask_user" {
		fmt.Fprintf(&b, "  answer:   prose answer %s %s --value TEXT%s\n", runID, w.Path.Key(), flags)
	} else if len(opts) > 0 {
		fmt.Fprintf(&b, "  answer:   prose answer %s %s --value %s%s   (one of the options; or --json JSON)\n", runID, w.Path.Key(), strings.Join(opts, "|"), flags)
	} else {
		fmt.Fprintf(&b, "  answer:   prose answer %s %s --json JSON%s   (or --value TEXT for a string)\n", runID, w.Path.Key(), flags)
	}
	fmt.Fprintf(&b, "  go on:    prose resume %s%s\n", runID, flags)
	return b.String()
}
