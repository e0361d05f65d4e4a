package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/proselang/prose/delegation"
)

// Parallel groups (FORMAT.md, "group").
//
// A parallel loop or statement is one group (delegation.RunGroup). Its
// value depends on the answers of its calls and judgments, which the
// journal answers by key, and on how it was decided: which iteration won
// (`parallel first`, a `return`) or failed first, and which iterations
// ended up to that decision, whose appends to outer lists the join merges
// (delegation/semantics.md, 15a). That is the one thing that depends on
// timing, so it is journaled too: a "group" record under the group's path
// when an iteration decided it. A group without a record ran every
// iteration to its end (or the run stopped inside it), and its outcome
// follows from its iterations alone.
//
// A resume or a replay answers a recorded group from its record: it runs
// the iterations the record says ended up to the decision (the deciding
// one included), concurrently and each to its end, and none of the
// iterations the decision canceled, since what they did before they were
// canceled changed nothing the run kept. Each must end as it did (the
// decider won or failed, the others neither): answered by key, they do,
// whatever order they finish in. So the outcome, and the run's value, do
// not depend on the order in which the replay's goroutines run. A replay
// whose iterations end otherwise (a journal that does not match the spec)
// diverges; a resume (where --force or the re-run of a failed call may
// change an answer) decides the rest of the group live.

// groupOccurrence counts the groups run at id: the n of its record.
func (rt *runtime) groupOccurrence(id delegation.Path) int {
	rt.r.mu.Lock()
	defer rt.r.mu.Unlock()
	rt.seen[id]++
	return rt.seen[id]
}

// Group runs a parallel group, answering it from its record when the
// journal holds one, and journals how it was decided.
func (rt *runtime) Group(ctx context.Context, id delegation.Path, n, limit int, fn func(ctx context.Context, i int) (bool, error), decided func(delegation.GroupOutcome)) delegation.GroupOutcome {
	r := rt.r
	occ := rt.groupOccurrence(id)
	if r.idx != nil {
		rec, err := r.idx.group(id, occ)
		if err == nil && rec != nil {
			var jo journaledGroup
			jo, err = readGroup(rec, n)
			if err == nil && jo.decider >= 0 {
				out := rt.answerGroup(ctx, id, occ, n, limit, fn, jo)
				if decided != nil && out.Decided() {
					decided(out)
				}
				return out
			}
		}
		if err != nil {
			r.fail(err)
			return delegation.GroupOutcome{Winner: -1, Failed: 0, Err: err}
		}
	}
	return rt.Runtime.Group(ctx, id, n, limit, fn, func(out delegation.GroupOutcome) {
		rt.recordGroup(ctx, id, occ, out)
		if decided != nil {
			decided(out)
		}
	})
}

// recordGroup journals out, the outcome of occurrence occ of the group at
// id, at its decision (before the other iterations are canceled, so that a
// process killed while they stop has it), unless the run is being stopped
// (canceled from outside, diverged: the deciding error is then that).
func (rt *runtime) recordGroup(ctx context.Context, id delegation.Path, occ int, out delegation.GroupOutcome) {
	r := rt.r
	if !out.Decided() || ctx.Err() != nil || r.Err() != nil || (out.Failed >= 0 && isCanceled(out.Err)) {
		return
	}
	rec := &Record{Type: TypeGroup, Time: r.opt.Now().UTC(), ID: id, Started: out.Started, Dropped: out.Dropped}
	if occ > 1 {
		rec.N = occ
	}
	d := out.Decider()
	if out.Failed >= 0 {
		rec.Failed = &d
	} else {
		rec.Winner = &d
	}
	r.write(rec, true)
}

// journaledGroup is a group's record, checked.
type journaledGroup struct {
	decider int  // -1: none (a "first" record of a loop that no iteration won)
	won     bool // the decider won (else it failed)
	started int
	dropped []int // ascending, below started, without the decider
}

// readGroup reads the record of a group of n iterations. A "first" record
// (before format 4) gave the winner and the iterations that finished in
// the order they finished: those before the winner ended up to the win.
func readGroup(rec *Record, n int) (journaledGroup, error) {
	bad := func(why string) (journaledGroup, error) {
		return journaledGroup{}, fmt.Errorf("journal: the %s record of parallel group %s is invalid: %s (the journal was damaged or does not belong to this spec)", rec.Type, rec.ID, why)
	}
	if rec.Type == TypeFirst {
		if rec.Winner == nil || *rec.Winner < 0 {
			return journaledGroup{decider: -1}, nil
		}
		w := *rec.Winner
		kept := map[int]bool{w: true}
		for _, i := range rec.Order {
			if i == w {
				break
			}
			kept[i] = true
		}
		jg := journaledGroup{decider: w, won: true}
		for i := range kept {
			jg.started = max(jg.started, i+1)
		}
		for i := range jg.started {
			if !kept[i] {
				jg.dropped = append(jg.dropped, i)
			}
		}
		if jg.started > n || slices.ContainsFunc(rec.Order, func(i int) bool { return i < 0 || i >= n }) {
			return bad(fmt.Sprintf("an iteration beyond the loop's %d", n))
		}
		return jg, nil
	}
	jg := journaledGroup{started: rec.Started, dropped: rec.Dropped}
	switch {
	case rec.Winner == nil && rec.Failed == nil && len(rec.Dropped) == 0 && rec.Started == n:
		// written by a resume whose group ran every iteration to its
		// end (recordUndecided): run as a new run would
		return journaledGroup{decider: -1}, nil
	case rec.Winner != nil && rec.Failed == nil:
		jg.decider, jg.won = *rec.Winner, true
	case rec.Failed != nil && rec.Winner == nil:
		jg.decider = *rec.Failed
	default:
		return bad("it names no winning or failing iteration, or both")
	}
	if jg.started > n || jg.decider < 0 || jg.decider >= jg.started {
		return bad(fmt.Sprintf("iteration %d of %d started, of a group of %d", jg.decider+1, jg.started, n))
	}
	for k, i := range jg.dropped {
		if i < 0 || i >= jg.started || i == jg.decider || (k > 0 && i <= jg.dropped[k-1]) {
			return bad("its dropped iterations are not ascending below those started, without the decider")
		}
	}
	return jg, nil
}

// kept is the j-th iteration (ascending) that ended up to the decision:
// below started and not dropped.
func (jg journaledGroup) kept(j int) int {
	i := j
	for _, d := range jg.dropped {
		if d > i {
			break
		}
		i++
	}
	return i
}

// ending is how one iteration ended.
type ending struct {
	won bool
	err error
}

// answerGroup runs a journaled group as its record says (see Parallel
// groups): the iterations that ended up to the decision, each to its end.
func (rt *runtime) answerGroup(ctx context.Context, id delegation.Path, occ, n, limit int, fn func(ctx context.Context, i int) (bool, error), jg journaledGroup) delegation.GroupOutcome {
	r := rt.r
	count := jg.started - len(jg.dropped)
	ends := make([]ending, count)
	inner := rt.Runtime.Group(ctx, id, count, limit, func(ctx context.Context, j int) (bool, error) {
		won, err := fn(ctx, jg.kept(j))
		ends[j] = ending{won, err}
		return false, nil // each runs to its end: the record decides
	}, nil)
	out := delegation.GroupOutcome{Winner: -1, Failed: -1, Started: jg.started, Dropped: jg.dropped}
	switch {
	case inner.Failed >= 0: // a panic
		out.Failed, out.Err = jg.kept(inner.Failed), inner.Err
		return out
	case ctx.Err() != nil || r.Err() != nil:
		return delegation.GroupOutcome{Winner: -1, Failed: -1, Started: jg.started, Dropped: jg.dropped}
	}
	mismatch := -1
	var deciderErr error
	for j, e := range ends {
		i := jg.kept(j)
		ok := e.err == nil && !e.won
		if i == jg.decider {
			ok = (jg.won && e.won && e.err == nil) || (!jg.won && e.err != nil)
			deciderErr = e.err
		}
		if !ok {
			mismatch = j
			break
		}
	}
	if mismatch < 0 {
		if jg.won {
			out.Winner = jg.decider
		} else {
			out.Failed, out.Err = jg.decider, deciderErr
		}
		return out
	}
	i, e := jg.kept(mismatch), ends[mismatch]
	if r.mode == Replaying {
		div := &DivergenceError{What: "parallel group", ID: id, Reason: groupReason(jg, i, e)}
		return delegation.GroupOutcome{Winner: -1, Failed: i, Err: r.diverge(div), Started: jg.started, Dropped: jg.dropped}
	}
	return rt.decideRest(ctx, id, occ, n, limit, fn, jg, ends)
}

// groupReason says how iteration i ended otherwise than the record says.
func groupReason(jg journaledGroup, i int, e ending) string {
	now := "ended without a return"
	switch {
	case e.err != nil:
		now = fmt.Sprintf("failed (%v)", e.err)
	case e.won:
		now = "returned"
	}
	was := "ended without deciding the group"
	switch {
	case i == jg.decider && jg.won:
		was = "won (returned)"
	case i == jg.decider:
		was = "failed or returned, deciding the group"
	}
	return fmt.Sprintf("in the journaled run iteration %d %s; in this run it %s", i+1, was, now)
}

// decideRest is how a resumed group ends when the iterations its record
// kept did not end as journaled (a forced resume, a failed call run
// again): the first of them in index order that won or failed decides
// (the other deciders are dropped); when none did, the iterations the
// record did not run are run live and decide as in a new run.
func (rt *runtime) decideRest(ctx context.Context, id delegation.Path, occ, n, limit int, fn func(ctx context.Context, i int) (bool, error), jg journaledGroup, ends []ending) delegation.GroupOutcome {
	out := delegation.GroupOutcome{Winner: -1, Failed: -1, Started: jg.started, Dropped: slices.Clone(jg.dropped)}
	for j, e := range ends {
		if !e.won && e.err == nil {
			continue
		}
		i := jg.kept(j)
		if out.Decided() {
			out.Dropped = append(out.Dropped, i)
			continue
		}
		if e.err != nil {
			out.Failed, out.Err = i, e.err
		} else {
			out.Winner = i
		}
	}
	if out.Decided() {
		slices.Sort(out.Dropped)
		rt.recordGroup(ctx, id, occ, out)
		return out
	}
	// The rest: the dropped iterations, then those never started.
	rest := func(j int) int {
		if j < len(jg.dropped) {
			return jg.dropped[j]
		}
		return jg.started + j - len(jg.dropped)
	}
	// Recorded at the end: the outcome in the group's own numbering is
	// only known then (the decision of more is in its numbering).
	more := rt.Runtime.Group(ctx, id, len(jg.dropped)+n-jg.started, limit, func(ctx context.Context, j int) (bool, error) {
		return fn(ctx, rest(j))
	}, nil)
	out = delegation.GroupOutcome{Winner: -1, Failed: -1, Err: more.Err, Started: jg.started}
	if more.Winner >= 0 {
		out.Winner = rest(more.Winner)
	}
	if more.Failed >= 0 {
		out.Failed = rest(more.Failed)
	}
	if more.Started > 0 {
		out.Started = max(out.Started, rest(more.Started-1)+1)
	}
	for _, j := range more.Dropped {
		out.Dropped = append(out.Dropped, rest(j))
	}
	for j := more.Started; j < len(jg.dropped); j++ {
		if d := rest(j); d < out.Started {
			out.Dropped = append(out.Dropped, d) // not run again
		}
	}
	slices.Sort(out.Dropped)
	if out.Decided() {
		rt.recordGroup(ctx, id, occ, out)
	} else {
		rt.recordUndecided(ctx, id, occ, n)
	}
	return out
}

// recordUndecided journals that occurrence occ of the group at id, which
// a record said was decided, ran every iteration to its end this time:
// a record naming neither a winner nor a failure, which supersedes the
// old one, so that a replay of the resumed run runs the group as a new
// run would rather than expect the old decision.
func (rt *runtime) recordUndecided(ctx context.Context, id delegation.Path, occ, n int) {
	r := rt.r
	if ctx.Err() != nil || r.Err() != nil {
		return
	}
	rec := &Record{Type: TypeGroup, Time: r.opt.Now().UTC(), ID: id, Started: n}
	if occ > 1 {
		rec.N = occ
	}
	r.write(rec, true)
}

// OlderFormatError is a replay of a journal written before groups were
// journaled (format 3) whose outcome differs from the journaled one: it
// says why it may (its parallel groups were decided again by timing).
type OlderFormatError struct {
	Version int
	Err     error // the difference
}

func (e *OlderFormatError) Error() string {
	return fmt.Sprintf("%v (the journal is format %d, which does not record how parallel groups ended: the replay decided them again and they may end otherwise than in the run; run the spec again for a journal that replays exactly)", e.Err, e.Version)
}

func (e *OlderFormatError) Unwrap() error { return e.Err }

// olderFormat explains a replay's difference from a journal of a format
// before groups were journaled.
func (r *Run) olderFormat(err error) error {
	if err == nil || errors.Is(err, ErrUnfinished) || r.hdr.Version >= GroupsVersion {
		return err
	}
	return &OlderFormatError{Version: r.hdr.Version, Err: err}
}
