package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// writer appends records to a journal file. Each record is one write(2)
// of a whole line, so a killed process never leaves a record half-visible
// except as a torn last line. Durable appends also fsync; concurrent
// durable appends share one fsync (group commit).
type writer struct {
	f *os.File

	mu      sync.Mutex // serializes writes; guards written, err
	written int64      // records written
	err     error      // first write error: the journal is unusable after it

	syncMu sync.Mutex // serializes fsyncs; guards synced
	synced int64      // records known to be on disk
	syncs  int64      // fsync calls made (for tests and benchmarks)
}

func newWriter(f *os.File) *writer { return &writer{f: f} }

// append writes v as one JSON line. When durable, it returns only after
// the line (and every line before it) is on disk.
func (w *writer) append(v any, durable bool) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("journal: encoding a record: %w", err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	if _, err := w.f.Write(line); err != nil {
		w.err = fmt.Errorf("journal: writing %s: %w", w.f.Name(), err)
		w.mu.Unlock()
		return w.err
	}
	w.written++
	seq := w.written
	w.mu.Unlock()
	if !durable {
		return nil
	}
	return w.sync(seq)
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
	return nil
}

// close syncs what is pending and closes the file.
func (w *writer) close() error {
	w.mu.Lock()
	seq := w.written
	w.mu.Unlock()
	err := w.sync(seq)
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
