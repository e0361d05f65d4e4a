package journal

import (
	"context"
	"fmt"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
)

// DivergenceError reports a run that no longer matches its journal: a call
// or judgment the journal does not hold, or holds with other arguments.
type DivergenceError struct {
	What    string // "call", "condition" or "parallel first"
	ID      delegation.Path
	Attempt int // for calls
	Pos     diag.Position
	Reason  string
}

func (e *DivergenceError) Error() string {
	at := ""
	if e.Pos.IsValid() || e.Pos.File != "" {
		at = e.Pos.String() + ": "
	}
	attempt := ""
	if e.What == "call" && e.Attempt > 1 {
		attempt = fmt.Sprintf(" (attempt %d)", e.Attempt)
	}
	return fmt.Sprintf("%s%s %s%s diverges from the journal: %s", at, e.What, e.ID, attempt, e.Reason)
}

// UnkeyedError refuses to resume a journal written before journals were
// keyed (format version 1 or 2): its digests are plain sha256, which
// anyone who can write the file can recompute after an edit, so prose
// cannot tell it from a journal whose bindings were changed and resealed,
// and a resume runs those bindings. A replay runs nothing live and still
// reads it.
type UnkeyedError struct {
	RunID   string
	Version int
	Prose   string // the prose that wrote it ("" when not recorded)
}

func (e *UnkeyedError) Error() string {
	by := writtenBy(e.Prose)
	return fmt.Sprintf("run %s was journaled by %s in format %d, before journals were sealed with the user's key: "+
		"prose resume runs its bindings again and cannot tell this journal from one edited and resealed by someone else, so it refuses; "+
		"prose replay %s still reads it (it runs nothing live); to continue the work, run the spec again", e.RunID, by, e.Version, e.RunID)
}

// UngroupedError refuses to resume a journal written before parallel
// groups were journaled (format 3): it does not say which iteration of a
// parallel group won or failed first, nor which ended before that, and
// its records are in the order of a turn-taking this prose no longer
// has, so a resume would decide those groups again by timing and could
// come out otherwise than the run. A replay still reads it: it runs
// nothing live, and its result is checked against the journaled one.
type UngroupedError struct {
	RunID   string
	Version int
	Prose   string // the prose that wrote it ("" when not recorded)
}

func (e *UngroupedError) Error() string {
	by := writtenBy(e.Prose)
	return fmt.Sprintf("run %s was journaled by %s in format %d, which does not record how its parallel groups ended (which iteration won or failed, which ended before): "+
		"a resume would decide them again by timing and could come out otherwise than the run, so it refuses; "+
		"prose replay %s still reads it (its result is checked against the journal); to continue the work, run the spec again", e.RunID, by, e.Version, e.RunID)
}

// SpecChangedError reports a spec whose bytes differ from the journaled
// run's.
type SpecChangedError struct {
	Spec       string
	Was, Now   string // sha256 digests
	Unreadable error  // set when the spec could not be read at all
	// Replay is set for a replay, which cannot go on with another spec.
	Replay bool
	// Forced is set when a resume went on anyway (--force).
	Forced bool
}

func (e *SpecChangedError) Error() string {
	if e.Unreadable != nil {
		return fmt.Sprintf("the run's spec %s cannot be read: %v", e.Spec, e.Unreadable)
	}
	hint := "--force to go on anyway"
	switch {
	case e.Forced:
		hint = "going on as --force asks; calls that differ run live"
	case e.Replay:
		hint = "a replay needs the spec the run ran with; 'prose resume --force' runs the changed one"
	}
	return fmt.Sprintf("the spec %s changed since the run started (sha256 %.12s..., now %.12s...); call ids may no longer match the journal (%s)", e.Spec, e.Was, e.Now, hint)
}

// ReplayedError is an attempt's error answered from the journal: the same
// message, and a timeout still reads as context.DeadlineExceeded.
type ReplayedError struct {
	Msg  string
	Kind string // KindError or KindTimeout
	// CanCatch is what the original error said of itself (an unreadable
	// model verdict may be caught by try), so a replay catches it too.
	CanCatch bool
}

func (e *ReplayedError) Error() string { return e.Msg }

// Catchable is the evaluator's test for errors that may be caught (see
// delegation.Error.Catchable).
func (e *ReplayedError) Catchable() bool { return e.CanCatch }

// Unwrap makes a replayed timeout satisfy errors.Is(err,
// context.DeadlineExceeded), as the original did.
func (e *ReplayedError) Unwrap() error {
	if e.Kind == KindTimeout {
		return context.DeadlineExceeded
	}
	return nil
}

// CheckSpec compares the journaled spec digest with src, the spec's bytes
// now. It returns nil when they match, else a *SpecChangedError.
func (h *Header) CheckSpec(src []byte) error {
	return checkDigest(h.Spec, h.SpecDigest, Digest(src))
}

func checkDigest(spec, was, now string) error {
	if was != now {
		return &SpecChangedError{Spec: spec, Was: was, Now: now}
	}
	return nil
}

// writtenBy names the prose that wrote a journal, from its header's
// version ("" when not recorded).
func writtenBy(prose string) string {
	if prose == "" {
		return "an older prose"
	}
	return "prose " + prose
}
