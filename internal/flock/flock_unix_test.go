//go:build unix

package flock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// An exclusive holder excludes everyone; shared holders admit each other
// and exclude an exclusive one; a waiter gets the lock once it is free,
// or stops with its context. (Two opens of one file are two holders to
// flock(2), as two processes are.)
func TestLockModes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, b, c := open(t, p), open(t, p), open(t, p)
	if ok, err := Try(a, Exclusive); !ok || err != nil {
		t.Fatalf("first exclusive: %v %v", ok, err)
	}
	if ok, err := Try(b, Shared); ok || err != nil {
		t.Fatalf("shared beside an exclusive holder: %v %v", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Wait(ctx, b, Exclusive, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting with a canceled context: %v", err)
	}
	got := make(chan error, 1)
	go func() { got <- Wait(context.Background(), b, Shared, time.Millisecond) }()
	Unlock(a)
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	if ok, err := Try(c, Shared); !ok || err != nil {
		t.Fatalf("a second shared holder: %v %v", ok, err)
	}
	if ok, err := Try(a, Exclusive); ok || err != nil {
		t.Fatalf("exclusive beside shared holders: %v %v", ok, err)
	}
	Unlock(b)
	Unlock(c)
	if ok, err := Try(a, Exclusive); !ok || err != nil {
		t.Fatalf("exclusive once all let go: %v %v", ok, err)
	}
}

// A file that cannot be locked is an error naming it, not "held".
func TestTryClosedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	f := open(t, p)
	f.Close()
	ok, err := Try(f, Exclusive)
	if ok || err == nil {
		t.Fatalf("closed file: %v %v", ok, err)
	}
}
