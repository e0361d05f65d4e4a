package journal

import (
	"context"
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
	if lag := syncedAt[len(syncedAt)-1].Sub(wrote); lag < window/2 {
		t.Errorf("the group commit ran after %v, before its window of %v", lag, window)
	}
}
