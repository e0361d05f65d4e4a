package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"sync"
	"time"
)

// writer appends records to a journal file. Each record is one write(2)
// of a whole line, so a killed process never leaves a record half-visible
// except as a torn last line. Durable appends also fsync: at once when
// every is 0 (concurrent durable appends then share one fsync), else
// within every (group commit: one fsync covers all the records of the
// window).
type writer struct {
	f     *os.File
	every time.Duration

	mu      sync.Mutex // serializes writes; guards written, err, timer, closed
	written int64      // records written
	err     error      // first write error: the journal is unusable after it
	timer   interface{ Stop() bool }
	closed  bool
	onSync  func(upto int64) // test hook, called after each fsync
	// afterFunc arms the group commit (time.AfterFunc; tests fire it by
	// hand).
	afterFunc func(d time.Duration, f func()) interface{ Stop() bool }

	// afterSync runs once, after the first fsync (syncing a new file's
	// directory entry).
	afterSync func()

	// last is the digest ("sum") of the last line written: each line's
	// sum covers it, chaining the records (see FORMAT.md).
	last string
	// key keys the chain (nil: unkeyed); h is the hash of its digests.
	key []byte
	h   hash.Hash
	// buf is the line being written (reused from one to the next).
	buf []byte
	// blobs, when set, keeps the long strings of records beside the
	// journal (blob.go); nil writes them in the line.
	blobs *blobStore

	syncMu sync.Mutex // serializes fsyncs; guards synced
	synced int64      // records known to be on disk
	syncs  int64      // fsync calls made (for tests and benchmarks)
}

func newWriter(f *os.File, every time.Duration) *writer {
	return &writer{f: f, every: every, afterFunc: func(d time.Duration, f func()) interface{ Stop() bool } {
		return time.AfterFunc(d, f)
	}}
}

// encodeRecord is the JSON of one record (a Header or a *Record), without
// its sum: the one encoding of every journal and trace line.
func encodeRecord(v any) ([]byte, error) {
	// Stubs of long strings are written out: this encoding keeps nothing
	// beside the line.
	switch r := v.(type) {
	case *Header:
		if len(r.RequestLong) > 0 {
			v = r.expanded()
		}
	case *Record:
		if len(r.long) > 0 {
			v = r.expanded()
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // call ids hold '>' ("L12/2>L5"): keep them readable
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("journal: encoding a record: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// append writes v as one JSON line. When durable, it returns only after
// the line (and every line before it) is on disk.
//
// A *Record is encoded by appendRecord into the writer's one line buffer
// (other values by encoding/json), its long strings kept beside the
// journal (blobs), sealed with its digest and written with one write(2),
// all under mu: lines go out in the order their digests chain them.
func (w *writer) append(v any, durable bool) error {
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	body, err := w.encode(v)
	if err != nil {
		w.mu.Unlock()
		return err
	}
	if w.h == nil {
		w.h = newSum(w.key)
	}
	sum := chainSumWith(w.h, w.last, body[:len(body)-1])
	line := append(body[:len(body)-1], sumKey...)
	line = append(line, sum...)
	line = append(line, '"', '}', '\n')
	w.buf = line[:0]
	if cap(w.buf) > 1<<20 {
		w.buf = nil // not held after a long line
	}
	w.last = sum
	if _, err := w.f.Write(line); err != nil {
		w.err = fmt.Errorf("journal: writing %s: %w", w.f.Name(), err)
		w.mu.Unlock()
		return w.err
	}
	w.written++
	seq := w.written
	if durable && w.every > 0 {
		if w.timer == nil && !w.closed {
			w.timer = w.afterFunc(w.every, w.flush)
		}
		durable = false
	}
	w.mu.Unlock()
	if !durable {
		return nil
	}
	return w.sync(seq)
}

// encode is the JSON of v, in w.buf when it can be (called with mu
// held), its long strings kept beside the journal when w keeps blobs.
func (w *writer) encode(v any) ([]byte, error) {
	body, ok := w.buf[:0], false
	var st *stubber
	if w.blobs != nil {
		st = &stubber{}
	}
	switch v := v.(type) {
	case *Record:
		if len(v.long) > 0 && st == nil {
			v = v.expanded() // not reached: encodeResult stubs only for a journal that keeps blobs
		}
		var at int
		body, at, ok = appendRecordAt(body, v)
		if ok && len(v.long) > 0 {
			for _, l := range v.long {
				l.off += at
				st.refs = append(st.refs, l)
			}
		}
	case *Header:
		body, ok = appendHeaderStubs(body, v, st)
	}
	if !ok {
		enc, err := encodeRecord(v)
		if err != nil {
			return nil, err
		}
		body = append(body, enc...)
	}
	w.buf = body
	if w.blobs == nil {
		return body, nil
	}
	return w.blobs.cut(body, st.refs)
}

// flush is the group commit: it syncs every record written so far.
func (w *writer) flush() {
	w.mu.Lock()
	w.timer = nil
	upto, closed := w.written, w.closed
	w.mu.Unlock()
	if !closed {
		_ = w.sync(upto)
	}
}

// sync makes sure record seq is on disk. A waiter that finds its record
// already covered by another's fsync returns at once.
func (w *writer) sync(seq int64) error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if w.synced >= seq {
		return nil
	}
	w.mu.Lock()
	upto := w.written
	var blobs []string
	var blobDir string
	if w.blobs != nil {
		blobs, blobDir = w.blobs.takePending(), w.blobs.dir
	}
	w.mu.Unlock()
	w.syncs++
	// The blobs the lines refer to go to disk before the lines do.
	if err := syncFiles(blobDir, blobs); err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		err = w.err
		w.mu.Unlock()
		return err
	}
	if err := w.f.Sync(); err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = fmt.Errorf("journal: syncing %s: %w", w.f.Name(), err)
		}
		err = w.err
		w.mu.Unlock()
		return err
	}
	w.synced = upto
	if w.afterSync != nil {
		w.afterSync()
		w.afterSync = nil
	}
	if w.onSync != nil {
		w.onSync(upto)
	}
	return nil
}

// close syncs what is pending and closes the file.
func (w *writer) close() error {
	w.mu.Lock()
	seq := w.written
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.mu.Unlock()
	err := w.sync(seq)
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
