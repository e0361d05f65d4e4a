package journal

import (
	"github.com/proselang/prose/delegation"
)

type callKey struct {
	id      delegation.Path
	attempt int
}

type judgeKey struct {
	id delegation.Path
	n  int
}

// index holds the records of earlier sessions that a resume or a replay
// answers from. A later record for the same key supersedes an earlier one
// (a forced resume re-ran it).
type index struct {
	calls    map[callKey]*Record // completed "end" records
	started  map[callKey]bool    // attempts that have a "start" record (for messages)
	canceled map[callKey]bool    // attempts the run canceled (a sibling failed, a winner was found)
	judges   map[judgeKey]*Record
	final    *Record
	// Each record the index holds knows its place in the journal
	// (Record.place): the order in which the journaled run completed its
	// calls and judgments. The index keeps only the records it answers
	// from, so the rest of the journal (its "start" records, ...) is not
	// held in memory while a long run is replayed.
}

// newIndexFor builds the index a run in mode answers from. A resume of a
// run that failed leaves out the attempts of the call that failed it (see
// failedCall), so that call runs live again.
func newIndexFor(l *Log, mode Mode) *index {
	var retry func(*Record) bool
	if mode == Resuming {
		retry = failedCall(l)
	}
	x := &index{
		calls:    map[callKey]*Record{},
		started:  map[callKey]bool{},
		canceled: map[callKey]bool{},
		judges:   map[judgeKey]*Record{},
	}
	for i, r := range l.Records {
		r.place = i
		switch r.Type {
		case TypeStart:
			x.started[callKey{r.ID, r.Attempt}] = true
		case TypeEnd:
			if retry != nil && retry(r) {
				continue
			}
			if r.completed() {
				x.calls[callKey{r.ID, r.Attempt}] = r
			} else {
				x.canceled[callKey{r.ID, r.Attempt}] = true
			}
		case TypeJudge:
			x.judges[judgeKey{r.ID, r.N}] = r
		case TypeFinal:
			x.final = r
		}
	}
	return x
}

// failedCall returns a test for the "end" records of the call that failed
// the run, when its last outcome was that failure: every attempt of the
// call at the position the final error names (its kind is "call"), and the
// failed attempts inside it when it ran another spec. It returns nil when
// the run did not fail that way. Answering them from the journal would only
// fail the resume the same way.
func failedCall(l *Log) func(*Record) bool {
	fin := l.Final()
	if fin == nil || fin.Status != StatusError || fin.ErrKind != delegation.KindCall || fin.Pos == "" {
		return nil
	}
	// The last failed attempt at that position (siblings of a parallel
	// loop may end after it).
	pos := map[callKey]string{}
	var last *Record
	for _, r := range l.Records {
		switch {
		case r.Type == TypeStart:
			pos[callKey{r.ID, r.Attempt}] = r.Pos
		case r.Type == TypeEnd && r.completed() && r.Err != "":
			if pos[callKey{r.ID, r.Attempt}] == fin.Pos {
				last = r
			}
		}
	}
	if last == nil {
		return nil
	}
	id := last.ID
	return func(r *Record) bool {
		return r.ID == id || (r.Err != "" && r.ID.Within(id))
	}
}
