package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/proselang/prose/internal/filekind"
)

// QueueView is what a state directory's queue file says, read without
// opening it for writing (a page that shows a served or copied state
// directory): the triggers it acknowledged (Accepted), those that
// repeated an event their gateway was given before (Duplicates), those
// no finished drain answered yet (Pending, oldest drain first), the
// finished drains (Drains, the last one's outcome Last), and per node
// the start of the last drain that left it a receipt (Fired) and that
// woke it by itself (Self), from which its Continuity counts (Due).
type QueueView struct {
	Accepted, Duplicates, Drains int
	Pending                      []Entry
	Last                         *Outcome
	Fired, Self                  map[string]time.Time
	// Held is, per gateway whose render failed, the events it holds, in
	// order (those set aside left out).
	Held map[string][]Entry
}

// ReadQueue reads the queue file of stateDir as it is now: no file is an
// empty queue, and a torn last line (a write in progress) is left out,
// as OpenQueue leaves it, without truncating it. A file that is not what
// its head record vouches for is refused, as OpenQueue refuses it.
func ReadQueue(stateDir string) (*QueueView, error) {
	p, hp := QueuePath(stateDir), QueueHeadPath(stateDir)
	h, _, err := readQueueHead(hp) // the head first, as OpenQueue reads it
	if err != nil {
		return nil, err
	}
	b, err := filekind.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	check := newHeadCheck(p, hp, h)
	q := &Queue{seen: map[string]map[string]bool{}, pending: map[int][]Entry{}, done: map[int]*Outcome{},
		fired: map[string]time.Time{}, self: map[string]time.Time{}, held: map[string][]Entry{}}
	v := &QueueView{}
	for good, n := 0, 1; len(b[good:]) > 0; n++ {
		i := bytes.IndexByte(b[good:], '\n')
		if i < 0 {
			break
		}
		var e Entry
		if err := json.Unmarshal(b[good:good+i], &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v (the queue file is damaged; move it aside to start an empty queue)", p, n, err)
		}
		if err := e.checkFP(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v: the queue file was edited or damaged", p, n, err)
		}
		if err := check.line(b[good : good+i]); err != nil {
			return nil, err
		}
		if e.Op == "enq" && !e.Self && !e.Edit {
			v.Accepted++
			if e.Dup {
				v.Duplicates++
			}
		}
		q.apply(e)
		good += i + 1
	}
	if err := check.end(); err != nil {
		return nil, err
	}
	ids := make([]int, 0, len(q.pending))
	for d := range q.pending {
		ids = append(ids, d)
	}
	sort.Ints(ids)
	for _, d := range ids {
		v.Pending = append(v.Pending, q.pending[d]...)
	}
	v.Drains = len(q.done)
	if q.maxDone > 0 {
		v.Last = q.done[q.maxDone]
	}
	v.Fired, v.Self, v.Held = q.fired, q.self, q.held
	return v, nil
}

// Depth is the number of triggers not yet answered by a finished drain.
func (v *QueueView) Depth() int { return len(v.Pending) }
