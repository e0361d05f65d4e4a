package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// key keys the chain (nil: unkeyed).
	key []byte

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
func (w *writer) append(v any, durable bool) error {
	body, err := encodeRecord(v)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	sum := chainSum(w.key, w.last, body)
	line := sealLine(body, sum)
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
	w.mu.Unlock()
	w.syncs++
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
