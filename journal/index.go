package journal

import (
	"strings"
	"sync"
)

type callKey struct {
	id      string
	attempt int
}

type judgeKey struct {
	id string
	n  int
}

// index holds the records of earlier sessions that a resume or a replay
// answers from. A later record for the same key supersedes an earlier one
// (a forced resume re-ran it).
type index struct {
	calls    map[callKey]*Record // completed "end" records
	started  map[callKey]*Record // "start" records (for messages)
	canceled map[callKey]bool    // attempts the run canceled (a sibling failed, a winner was found)
	judges   map[judgeKey]*Record
	firsts   map[string]*Record // "first" records by loop id
	final    *Record

	mu      sync.Mutex
	used    map[callKey]bool
	pending int // completed call records not answered yet

	// Journal order of the completed call records: seq[k] is k's place,
	// order[i] the key in place i; low is the first place not answered
	// yet, and changed is closed (and replaced) whenever low moves.
	seq     map[callKey]int
	order   []callKey
	low     int
	changed chan struct{}
	// holder is the parallel iteration that got the last journaled answer
	// and has not yet reached its next call, judgment or end (see turn.go).
	holder *iterToken
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
		started:  map[callKey]*Record{},
		canceled: map[callKey]bool{},
		judges:   map[judgeKey]*Record{},
		firsts:   map[string]*Record{},
		used:     map[callKey]bool{},
		seq:      map[callKey]int{},
		changed:  make(chan struct{}),
	}
	for _, r := range l.Records {
		switch r.Type {
		case TypeStart:
			x.started[callKey{r.ID, r.Attempt}] = r
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
		case TypeFirst:
			if r.Winner != nil {
				x.firsts[r.ID] = r
			}
		case TypeFinal:
			x.final = r
		}
	}
	x.pending = len(x.calls)
	for _, r := range l.Records {
		k := callKey{r.ID, r.Attempt}
		if r.Type == TypeEnd && x.calls[k] == r {
			x.seq[k] = len(x.order)
			x.order = append(x.order, k)
		}
	}
	return x
}

// remaining is the number of completed call records not answered yet.
func (x *index) remaining() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.pending
}

// failedCall returns a test for the "end" records of the call that failed
// the run, when its last outcome was that failure: every attempt of the
// call whose failure the final error reports (it starts with the call's
// .md position), and the failed attempts inside it when it ran another
// spec. It returns nil when the run did not fail that way. Answering them
// from the journal would only fail the resume the same way.
func failedCall(l *Log) func(*Record) bool {
	fin := l.Final()
	if fin == nil || fin.Status != StatusError {
		return nil
	}
	// The last failed attempt at the position the error names (siblings
	// of a parallel loop may end after it).
	pos := map[callKey]string{}
	var last *Record
	for _, r := range l.Records {
		switch {
		case r.Type == TypeStart:
			pos[callKey{r.ID, r.Attempt}] = r.Pos
		case r.Type == TypeEnd && r.completed() && r.Err != "":
			if p := pos[callKey{r.ID, r.Attempt}]; p != "" && strings.HasPrefix(fin.Err, p+":") {
				last = r
			}
		}
	}
	if last == nil {
		return nil
	}
	id := last.ID
	return func(r *Record) bool {
		return r.ID == id || (r.Err != "" && strings.HasPrefix(r.ID, id+">"))
	}
}
