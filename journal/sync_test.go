package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// fakeTimers stands in for time.AfterFunc: the test fires the group
// commit by hand, so nothing depends on the machine's speed.
type fakeTimers struct {
	mu    sync.Mutex
	armed []time.Duration
	fire  []func()
}

func (ft *fakeTimers) afterFunc(d time.Duration, f func()) interface{ Stop() bool } {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.armed = append(ft.armed, d)
	ft.fire = append(ft.fire, f)
	return stopper{}
}

type stopper struct{}

func (stopper) Stop() bool { return true }

// fireAll runs the armed group commits and forgets them.
func (ft *fakeTimers) fireAll() int {
	ft.mu.Lock()
	fs := ft.fire
	ft.fire = nil
	ft.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return len(fs)
}

// newTestWriter is a writer with group-commit window every on a new file,
// its timers fired by hand.
func newTestWriter(t *testing.T, every time.Duration) (*writer, *fakeTimers, *[]int64) {
	f, err := os.Create(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	w := newWriter(f, every)
	if w.key, err = UserKey(); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTimers{}
	w.afterFunc = ft.afterFunc
	var mu sync.Mutex
	synced := &[]int64{}
	w.onSync = func(upto int64) { mu.Lock(); *synced = append(*synced, upto); mu.Unlock() }
	t.Cleanup(func() { w.close() })
	return w, ft, synced
}

// With a group-commit window, a completed call's record is written at once
// (visible to a reader: a kill loses nothing) and fsynced by the group
// commit that the first durable record armed for one window later, not
// before the call returns; one fsync covers the window's records.
func TestGroupCommitLossWindowIsBounded(t *testing.T) {
	const window = 200 * time.Millisecond
	w, ft, synced := newTestWriter(t, window)
	r := &Run{w: w, opt: Options{}.withDefaults()}
	if err := w.append(&Header{Type: TypeHeader, Version: FormatVersion}, true); err != nil {
		t.Fatal(err)
	}
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "ok", nil }}
	c := r.WrapCaller(fakeCaller{})
	for i, id := range []string{"L1", "L2", "L3"} {
		if _, err := c.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath(id), Service: svc, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		if l, _ := ReadFile(w.f.Name()); l == nil || len(newIndex(l).calls) != i+1 {
			t.Fatalf("after call %d the journal does not show it", i+1)
		}
	}
	if len(*synced) != 0 {
		t.Fatalf("fsynced %v before the window ended: want the calls to return first", *synced)
	}
	if len(ft.armed) != 1 || ft.armed[0] != window {
		t.Fatalf("group commits armed %v, want one for %v", ft.armed, window)
	}
	ft.fireAll()
	if len(*synced) != 1 || (*synced)[0] != 4 { // header + 3 ends
		t.Errorf("fsyncs covered %v, want one covering all 4 records", *synced)
	}
}

// The window is a bound, not a debounce: a write while a group commit is
// armed does not postpone it, so a steady stream of records is fsynced
// every window and never leaves more than a window's records unsynced.
func TestGroupCommitUnderSteadyWrites(t *testing.T) {
	const window = 100 * time.Millisecond
	w, ft, synced := newTestWriter(t, window)
	for i := range 10 {
		if err := w.append(&Record{Type: TypeEnd, ID: delegation.MustParsePath(fmt.Sprintf("L%d", i+1)), Attempt: 1, Result: []byte(`1`)}, true); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			ft.fireAll() // a window passes every second record
		}
	}
	if len(ft.armed) != 5 {
		t.Errorf("armed %d group commits for 10 records, 2 per window: want 5 (one per window, none postponed)", len(ft.armed))
	}
	want := []int64{2, 4, 6, 8, 10}
	if fmt.Sprint(*synced) != fmt.Sprint(want) {
		t.Errorf("fsyncs covered %v, want %v", *synced, want)
	}
}
