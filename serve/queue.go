package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/world/canon"
)

// Queue file format (decided here; one JSON object a line, append-only,
// each line fsync'd before the trigger it records is acknowledged):
//
//	{"op":"enq","drain":N,"node":"ID","event":EVENT,"fp":"sha256:..","dup":BOOL}
//	{"op":"enq","drain":N,"node":"ID"}                       (a manual wake, no event)
//	{"op":"enq","drain":N,"node":"ID","self":true}           (a self wake, by a cadence)
//	{"op":"enq","drain":N,"node":"ID","self":true,"event":EVENT,"fp":"sha256:.."}
//	                                        (a gateway's schedule: ScheduledEvent)
//	{"op":"enq","drain":N,"edit":true}                       (an edit of the project's files)
//	{"op":"done","drain":N,"outcome":{...}}
//
// A trigger is acknowledged once its enq line is on disk. Drain N is
// pending until its done line is; on a restart the pending drains are run
// again in order, each with exactly the events it was given, so a drain
// whose commit landed before a kill finds its gateway's memo key equal
// and skips. A line torn by a kill (no newline at the end) was never
// acknowledged and is dropped.
//
// An event whose fingerprint (canonical JSON, package canon) an earlier
// enq line of the same node holds is a duplicate: it is queued (so its
// drain answers for it) but not delivered, and its gateway is woken with
// an equal key, which leaves a skipped receipt. The file is never
// compacted, so a duplicate is known across restarts.

// A gateway whose render failed keeps the events it was given: a hold
// line per event, written before the drain's done line, and each is
// delivered again (before any new one) by every later drain until the
// gateway renders or skips, which an unhold line records:
//
//	{"op":"hold","drain":N,"node":"ID","event":EVENT,"fp":"sha256:.."}
//	{"op":"unhold","drain":N,"node":"ID"}
//
// A kill between the hold lines and the done line runs drain N again with
// its events, the held ones skipped by fingerprint: an event is delivered
// at least once, never lost (a gateway folds events by id).
//
// A held event that fails every render would block its gateway for good.
// Decided: nothing drops it in silence, and nothing drops it at all
// unless told. `prose receipts set-aside NODE FP` (Queue.SetAside), run
// while no server holds the state directory's lock, writes an aside
// line, which ends that one event's hold; the line keeps the event
// whole, with who set it aside and why, so the queue file still holds
// every event it acknowledged and says what became of each:
//
//	{"op":"aside","drain":0,"node":"ID","event":EVENT,"fp":"sha256:..","why":"..."}
//
// An event set aside stays seen: sent again it is a duplicate, as any
// event sent twice is. `prose receipts held` lists the held events.

// Entry is one line of the queue file.
type Entry struct {
	Op    string          `json:"op"`
	Drain int             `json:"drain"`
	Node  string          `json:"node,omitempty"`
	Event json.RawMessage `json:"event,omitempty"`
	FP    string          `json:"fp,omitempty"`
	Dup   bool            `json:"dup,omitempty"`
	Self  bool            `json:"self,omitempty"`
	// Edit marks the entry of a drain asked for by an edit of the
	// project's files (EnqueueEdit): it names no node and delivers
	// nothing; its drain loads the graph again and checks every node.
	Edit    bool     `json:"edit,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
	// Why is an aside line's reason, as given to SetAside.
	Why string `json:"why,omitempty"`
}

// Queue is the durable trigger queue of a state directory.
//
// Syncs are shared (group commit, decided): a line is written under the
// queue's lock and its writer then waits until a sync that began after
// the write has ended, so the triggers of one burst share one fsync and
// none is acknowledged before its line is on disk. A drain is taken only
// once every line written before it was taken is on disk, so no drain
// runs an event a crash could still lose.
type Queue struct {
	mu sync.Mutex
	f  *os.File
	// written counts the lines written (under mu); synced, under smu,
	// how many of them a finished fsync covers.
	written int64
	// nlines, size and chain are the file's whole lines, their bytes and
	// their hash chain (queuehead.go), read and written (under mu);
	// headLines, under smu, how many lines the head record on disk
	// covers (-1: there is none).
	nlines, size int64
	chain        string
	smu          sync.Mutex
	synced       int64
	headLines    int64
	// sync makes the file's writes durable (f.Sync).
	sync    func() error
	next    int // the drain id new triggers join
	running int // the drain being run (0: none)
	seen    map[string]map[string]bool
	pending map[int][]Entry
	done    map[int]*Outcome
	maxDone int
	// fired and self are, per node, the start of the last finished drain
	// that left it a receipt, and that woke it by itself.
	fired, self map[string]time.Time
	// held are, per gateway, the events of its failed renders, in order.
	held map[string][]Entry
	// head writes the queue's head record (QueueHeadPath), under smu.
	head headWriter
}

// QueuePath is the queue file of a state directory.
func QueuePath(stateDir string) string { return filepath.Join(stateDir, ".serve", "queue.jsonl") }

// OpenQueue reads (creating it when absent) the queue file of stateDir.
func OpenQueue(stateDir string) (*Queue, error) {
	p := QueuePath(stateDir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	q := &Queue{seen: map[string]map[string]bool{}, pending: map[int][]Entry{}, done: map[int]*Outcome{},
		fired: map[string]time.Time{}, self: map[string]time.Time{}, held: map[string][]Entry{}}
	// The head before the file: a writer writes the file, then its
	// head, so the file read after it is never behind it.
	hp := QueueHeadPath(stateDir)
	h, seq, err := readQueueHead(hp)
	if err != nil {
		return nil, err
	}
	b, err := filekind.ReadFile(p) // a named pipe is refused, not waited on
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	check := newHeadCheck(p, hp, h)
	good := 0
	for n := 1; len(b[good:]) > 0; n++ {
		i := bytes.IndexByte(b[good:], '\n')
		if i < 0 {
			break // torn last line: never acknowledged
		}
		line := b[good : good+i]
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v (the queue file is damaged; move it aside to start an empty queue)", p, n, err)
		}
		if err := e.checkFP(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v: the queue file was edited or damaged, and its events are not delivered; restore it, or move it aside to start an empty queue (its held events are then lost)", p, n, err)
		}
		if err := check.line(line); err != nil {
			return nil, err
		}
		q.apply(e)
		good += i + 1
	}
	if err := check.end(); err != nil {
		return nil, err
	}
	q.nlines, q.size, q.chain, q.headLines = check.lines, check.size, check.chain, -1
	if h != nil {
		q.headLines = h.Lines
	}
	q.head = headWriter{path: hp, seq: seq, made: h != nil}
	if good < len(b) {
		if err := os.Truncate(p, int64(good)); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	q.f, q.sync = f, f.Sync
	q.next = q.maxDone + 1
	for d := range q.pending {
		if d >= q.next {
			q.next = d + 1
		}
	}
	return q, nil
}

// checkFP checks that an entry's event is the one its fingerprint
// names (decided): a line's fp is what marks an event seen, held and set
// aside, so an event edited in place would otherwise be delivered, held
// or listed as another while counting as the one acknowledged. An entry
// without an event or without a fingerprint has nothing to check.
func (e *Entry) checkFP() error {
	if len(e.Event) == 0 || e.FP == "" {
		return nil
	}
	v, err := canon.Decode(e.Event)
	if err == nil {
		var fp string
		if fp, err = canon.Fingerprint(v, nil); err == nil && fp != e.FP {
			err = fmt.Errorf("the %s event of node %s is not the one its fingerprint %s names (its own is %s)", e.Op, e.Node, e.FP, fp)
		}
	}
	return err
}

func (q *Queue) apply(e Entry) {
	switch e.Op {
	case "enq":
		if e.FP != "" {
			if q.seen[e.Node] == nil {
				q.seen[e.Node] = map[string]bool{}
			}
			q.seen[e.Node][e.FP] = true
		}
		if _, ok := q.done[e.Drain]; !ok {
			q.pending[e.Drain] = append(q.pending[e.Drain], e)
		}
	case "hold":
		q.held[e.Node] = append(q.held[e.Node], e)
	case "unhold":
		delete(q.held, e.Node)
	case "aside":
		var keep []Entry
		for _, h := range q.held[e.Node] {
			if h.FP != e.FP {
				keep = append(keep, h)
			}
		}
		if len(keep) == 0 {
			delete(q.held, e.Node)
		} else {
			q.held[e.Node] = keep
		}
	case "done":
		q.done[e.Drain] = e.Outcome
		if o := e.Outcome; o != nil {
			for _, r := range o.Receipts {
				if o.Start.After(q.fired[r.Node]) {
					q.fired[r.Node] = o.Start
				}
			}
			for _, t := range o.Triggers {
				if t.Self && o.Start.After(q.self[t.Node]) {
					q.self[t.Node] = o.Start
				}
			}
		}
		delete(q.pending, e.Drain)
		if e.Drain > q.maxDone {
			q.maxDone = e.Drain
		}
	}
}

// write writes e's line (mu is held); durable(q.written) then waits
// for it to be on disk.
func (q *Queue) write(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := q.f.Write(append(b, '\n')); err != nil {
		return err
	}
	q.written++
	q.nlines++
	q.size += int64(len(b)) + 1
	q.chain = chainNext(q.chain, b)
	return nil
}

// durable returns once the first n lines written are on disk and the
// head record covers them: one fsync covers every line written before it
// began, so writers that wait together share it, and one head write
// after it. mu must not be held.
func (q *Queue) durable(n int64) error {
	q.smu.Lock()
	defer q.smu.Unlock()
	if q.synced >= n {
		return nil
	}
	q.mu.Lock()
	upTo := q.written
	h := queueHead{Lines: q.nlines, Size: q.size, Chain: q.chain}
	q.mu.Unlock()
	if err := q.sync(); err != nil {
		return err
	}
	// The lines first, then the head that vouches for them (queuehead.go).
	if h.Lines > q.headLines {
		if err := q.head.write(h); err != nil {
			return err
		}
		q.headLines = h.Lines
	}
	q.synced = upTo
	return nil
}

// Enqueue records a trigger of node durably: event is its JSON (nil for a
// manual wake). It returns the drain that will answer it and whether the
// event is a duplicate of one node was given before.
func (q *Queue) Enqueue(node string, event []byte) (drain int, dup bool, err error) {
	e := Entry{Op: "enq", Node: node}
	if err := e.setEvent(event); err != nil {
		return 0, false, err
	}
	q.mu.Lock()
	if e, err = q.enqueueLocked(e); err != nil {
		return 0, false, err
	}
	return e.Drain, e.Dup, nil
}

// enqueueLocked gives e the drain new triggers join, writes and applies
// it, unlocks mu (held by the caller) and waits for the line to be on
// disk.
func (q *Queue) enqueueLocked(e Entry) (Entry, error) {
	if q.next == q.running {
		q.next++
	}
	e.Drain = q.next
	e.Dup = e.FP != "" && q.seen[e.Node][e.FP]
	if err := q.write(e); err != nil {
		q.mu.Unlock()
		return e, err
	}
	q.apply(e)
	n := q.written
	q.mu.Unlock()
	return e, q.durable(n)
}

// setEvent gives e event (JSON; nil for none), canonical, and its
// fingerprint.
func (e *Entry) setEvent(event []byte) error {
	if event == nil {
		return nil
	}
	v, err := canon.Decode(event)
	if err != nil {
		return err
	}
	c, err := canon.Marshal(v)
	if err != nil {
		return err
	}
	fp, err := canon.Fingerprint(v, nil)
	if err != nil {
		return err
	}
	e.Event, e.FP = c, fp
	return nil
}

// EnqueueSelf records a self wake of node, unless one is pending. event
// is what the wake delivers (a gateway's ScheduledEvent; nil for none):
// an event node was given before is a duplicate, as in Enqueue, and
// delivers nothing.
func (q *Queue) EnqueueSelf(node string, event []byte) (drain int, queued bool, err error) {
	e := Entry{Op: "enq", Node: node, Self: true}
	if err := e.setEvent(event); err != nil {
		return 0, false, err
	}
	defer func() {
		if err == nil {
			err = q.durable(q.lines())
		}
	}()
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, es := range q.pending {
		for _, e := range es {
			if e.Self && e.Node == node {
				return e.Drain, false, nil
			}
		}
	}
	if q.next == q.running {
		q.next++
	}
	e.Drain = q.next
	e.Dup = e.FP != "" && q.seen[node][e.FP]
	if err := q.write(e); err != nil {
		return 0, false, err
	}
	q.apply(e)
	return e.Drain, true, nil
}

// EnqueueEdit records that the project's files were edited, so that a
// drain loads them and checks every node, unless a drain not yet taken
// is pending (it will): it returns that drain and whether a line was
// written.
func (q *Queue) EnqueueEdit() (drain int, queued bool, err error) {
	q.mu.Lock()
	if q.next != q.running && len(q.pending[q.next]) > 0 {
		d := q.next
		q.mu.Unlock()
		return d, false, nil
	}
	e, err := q.enqueueLocked(Entry{Op: "enq", Edit: true})
	if err != nil {
		return 0, false, err
	}
	return e.Drain, true, nil
}

// Held is the events held for node (a gateway whose render failed), in
// order.
func (q *Queue) Held(node string) []Entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Entry(nil), q.held[node]...)
}

// HeldAll is the events held, by node, for every node that has any.
func (q *Queue) HeldAll() map[string][]Entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make(map[string][]Entry, len(q.held))
	for n, es := range q.held {
		if len(es) > 0 {
			out[n] = append([]Entry(nil), es...)
		}
	}
	return out
}

// Hold records durably that node keeps events (entries of drain) for the
// next drains.
func (q *Queue) Hold(drain int, node string, events []Entry) error {
	q.mu.Lock()
	for _, ev := range events {
		e := Entry{Op: "hold", Drain: drain, Node: node, Event: ev.Event, FP: ev.FP}
		if err := q.write(e); err != nil {
			q.mu.Unlock()
			return err
		}
		q.apply(e)
	}
	q.mu.Unlock()
	return q.durable(q.lines())
}

// lines is the number of lines written so far.
func (q *Queue) lines() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.written
}

// Unhold records durably that node's held events were delivered.
func (q *Queue) Unhold(drain int, node string) error {
	q.mu.Lock()
	if len(q.held[node]) == 0 {
		q.mu.Unlock()
		return nil
	}
	e := Entry{Op: "unhold", Drain: drain, Node: node}
	if err := q.write(e); err != nil {
		q.mu.Unlock()
		return err
	}
	q.apply(e)
	q.mu.Unlock()
	return q.durable(q.lines())
}

// ErrNotHeld is SetAside's error for an event node does not hold.
var ErrNotHeld = errors.New("no such held event")

// SetAside records durably, in an aside line, that node's held event of
// fingerprint fp (whole, or 8 or more of its first hex digits when they
// name one event) is delivered no more, for why; the line keeps the
// event.
// It returns the event set aside; an fp node holds no event of is
// ErrNotHeld, naming those it holds. Only a writer holding the state
// directory's lock may call it (the server does not: it is the command
// a person runs against a stopped server).
func (q *Queue) SetAside(node, fp, why string) (Entry, error) {
	q.mu.Lock()
	var ev Entry
	var fps []string
	want := strings.TrimPrefix(fp, "sha256:")
	for _, h := range q.held[node] {
		hex := strings.TrimPrefix(h.FP, "sha256:")
		if h.FP == fp || (len(want) >= 8 && strings.HasPrefix(hex, want)) {
			if ev.FP != "" && ev.FP != h.FP {
				q.mu.Unlock()
				return Entry{}, fmt.Errorf("%s: %s holds more than one event whose fingerprint begins %s (%s, %s): give more of it", ErrNotHeld.Error(), node, want, ev.FP, h.FP)
			}
			ev = h
		}
		fps = append(fps, h.FP)
	}
	if ev.FP == "" {
		q.mu.Unlock()
		if len(fps) == 0 {
			return Entry{}, fmt.Errorf("%w: %s holds no event", ErrNotHeld, node)
		}
		return Entry{}, fmt.Errorf("%w: %s holds no event %s (it holds %s)", ErrNotHeld, node, fp, strings.Join(fps, ", "))
	}
	e := Entry{Op: "aside", Node: node, Event: ev.Event, FP: ev.FP, Why: why}
	if err := q.write(e); err != nil {
		q.mu.Unlock()
		return Entry{}, err
	}
	q.apply(e)
	q.mu.Unlock()
	return ev, q.durable(q.lines())
}

// Fired is the start of the last finished drain that left node a
// receipt, and of the last that woke it by itself (zero when none).
func (q *Queue) Fired(node string) (any, self time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fired[node], q.self[node]
}

// Take starts the oldest pending drain: it returns its id and entries, or
// 0 when nothing is pending. Triggers enqueued from now on join a later
// drain.
//
// The drain's entries are on disk when it is taken: Take syncs what
// was written before (an fsync failing leaves it pending: 0 is
// returned, and the writer that waits on the sync gets the error).
func (q *Queue) Take() (int, []Entry) {
	q.mu.Lock()
	low := 0
	for d := range q.pending {
		if low == 0 || d < low {
			low = d
		}
	}
	if low == 0 {
		q.mu.Unlock()
		return 0, nil
	}
	q.running = low
	es, n := q.pending[low], q.written
	q.mu.Unlock()
	if q.durable(n) != nil {
		q.Release()
		return 0, nil
	}
	return low, es
}

// Finish records drain's outcome durably.
func (q *Queue) Finish(drain int, o *Outcome) error {
	q.mu.Lock()
	e := Entry{Op: "done", Drain: drain, Outcome: o}
	if err := q.write(e); err != nil {
		q.mu.Unlock()
		return err
	}
	n := q.written
	q.mu.Unlock()
	if err := q.durable(n); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.apply(e)
	q.running = 0
	if q.next <= drain {
		q.next = drain + 1
	}
	return nil
}

// Release forgets that drain is running without finishing it (an
// abandoned drain): it stays pending.
func (q *Queue) Release() {
	q.mu.Lock()
	q.running = 0
	q.mu.Unlock()
}

// State is what is known of a drain id: "queued", "running", "done" or
// "unknown", and its outcome once done.
func (q *Queue) State(drain int) (string, *Outcome) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.done[drain] != nil:
		return "done", q.done[drain]
	case drain == q.running && drain > 0: // 0 is none running
		return "running", nil
	case q.pending[drain] != nil:
		return "queued", nil
	}
	return "unknown", nil
}

// Depth is the number of triggers not yet answered by a finished drain.
func (q *Queue) Depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, es := range q.pending {
		n += len(es)
	}
	return n
}

// Close closes the queue file.
func (q *Queue) Close() error {
	q.smu.Lock()
	q.head.close()
	q.smu.Unlock()
	return q.f.Close()
}
