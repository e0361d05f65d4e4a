package serve

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestBurstSharesSyncs: triggers sent together share fsyncs (fewer syncs
// than triggers), and each is acknowledged only once a sync that covers
// its line has ended: at each acknowledgement, the lines on disk hold its
// event.
func TestBurstSharesSyncs(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var mu sync.Mutex
	var durable []byte // the file as of the last sync that ended
	syncs := 0
	gate := make(chan struct{})
	first := true
	q.sync = func() error {
		mu.Lock()
		wait := first
		first = false
		mu.Unlock()
		if wait {
			<-gate // the first sync waits for the burst to be written
		}
		b, err := os.ReadFile(QueuePath(dir))
		if err != nil {
			return err
		}
		mu.Lock()
		durable, syncs = b, syncs+1
		mu.Unlock()
		return nil
	}
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf(`{"id":"e%02d"}`, i)
			if _, _, err := q.Enqueue("g", []byte(id)); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			ok := bytes.Contains(durable, []byte(fmt.Sprintf(`"e%02d"`, i)))
			mu.Unlock()
			if !ok {
				errs <- fmt.Errorf("event e%02d acknowledged before a sync covered its line", i)
			}
		}(i)
	}
	// Let every trigger write its line before the first sync ends (a
	// queue that syncs under its lock never gets there: the deadline
	// only keeps such a queue from hanging the test).
	for deadline := time.Now().Add(time.Minute); q.lines() < n; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d triggers wrote their lines while a sync was in progress", q.lines(), n)
		}
	}
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if syncs >= n {
		t.Errorf("%d syncs for %d triggers sent together: none shared", syncs, n)
	}
	if syncs > 2 {
		t.Errorf("%d syncs for one burst of %d triggers, want at most 2 (the first, and one for all that waited on it)", syncs, n)
	}
}
