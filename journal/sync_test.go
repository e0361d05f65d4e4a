package journal

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// With a group-commit window, a completed call's record is written at once
// (visible to a reader: a kill loses nothing) and fsynced within the
// window, not before the call returns.
func TestGroupCommitLossWindowIsBounded(t *testing.T) {
	const window = 200 * time.Millisecond
	base := t.TempDir()
	r, err := Create(base, newHeader("x"), Options{SyncEvery: window})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var syncedAt []time.Time
	var syncedUpto []int64
	r.w.onSync = func(upto int64) {
		mu.Lock()
		syncedAt, syncedUpto = append(syncedAt, time.Now()), append(syncedUpto, upto)
		mu.Unlock()
	}
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "ok", nil }}
	c := r.WrapCaller(fakeCaller{})
	wrote := time.Now()
	for i, id := range []string{"L1", "L2", "L3"} {
		if _, err := c.Call(context.Background(), &delegation.CallRequest{ID: id, Service: svc, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		if l, _ := ReadFile(r.Path()); l == nil || len(newIndex(l).calls) != i+1 {
			t.Fatalf("after call %d the journal does not show it", i+1)
		}
	}
	mu.Lock()
	early := len(syncedAt)
	mu.Unlock()
	if early != 0 {
		t.Logf("a group commit ran before the calls returned (slow machine?)")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(syncedUpto)
		done := n > 0 && syncedUpto[n-1] >= 7 // header + 3 starts + 3 ends
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("records not fsynced 5 s after a %v window", window)
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(syncedAt) > 2 {
		t.Errorf("%d fsyncs for one window of records, want them grouped", len(syncedAt))
	}
	lag := syncedAt[len(syncedAt)-1].Sub(wrote)
	if lag < window/2 {
		t.Errorf("the group commit ran after %v, before its window of %v", lag, window)
	}
	// The loss window: the records were on disk a window (plus the fsync's
	// own time; a generous second for a loaded machine) after the first.
	if lag > window+time.Second {
		t.Errorf("the group commit ran %v after the first record, for a window of %v", lag, window)
	}
}

// The window is a bound, not a debounce: records written without pause
// are still fsynced every window, so a steady stream of calls never
// leaves more than a window's records unsynced.
func TestGroupCommitUnderSteadyWrites(t *testing.T) {
	const window = 100 * time.Millisecond
	r, err := Create(t.TempDir(), newHeader("x"), Options{SyncEvery: window})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	syncs := 0
	r.w.onSync = func(int64) { mu.Lock(); syncs++; mu.Unlock() }
	// 10 writes 60 ms apart: 600 ms of writes with no pause of a window.
	stream := 10 * 60 * time.Millisecond
	for i := range 10 {
		if err := r.write(&Record{Type: TypeEnd, ID: fmt.Sprintf("L%d", i), Attempt: 1, Result: []byte(`1`)}, true); err != nil {
			t.Fatal(err)
		}
		time.Sleep(stream / 10)
	}
	mu.Lock()
	n := syncs
	mu.Unlock()
	// A debounced sync (postponed by each write) would not have run yet;
	// at one per window there are ~6. Two leaves room for a loaded machine.
	if n < 2 {
		t.Errorf("%d fsyncs during %v of steady writes with a %v window", n, stream, window)
	}
}
