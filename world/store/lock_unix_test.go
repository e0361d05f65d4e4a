//go:build unix

package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A second writer is refused with the holder named; a waiting one gets
// the lock once the holder lets go, or stops with its context; shared
// holders exclude only an exclusive one.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	release, err := Lock(ctx, dir, LockOptions{Command: "prose run"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(ctx, dir, LockOptions{Command: "prose serve"})
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.PID != os.Getpid() || held.Holder.Command != "prose run" || !strings.Contains(err.Error(), "prose run") {
		t.Fatalf("second writer: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Lock(canceled, dir, LockOptions{Wait: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting with a canceled context: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := Lock(ctx, dir, LockOptions{Command: "waiter", Wait: true})
		if err == nil {
			r()
		}
		got <- err
	}()
	release()
	if err := <-got; err != nil {
		t.Errorf("waiter: %v", err)
	}
	a, err := Lock(ctx, dir, LockOptions{Command: "prose worker", Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Lock(ctx, dir, LockOptions{Command: "prose worker", Shared: true})
	if err != nil {
		t.Fatalf("a second shared holder: %v", err)
	}
	if _, err := Lock(ctx, dir, LockOptions{Command: "prose run"}); !errors.As(err, &held) || held.Holder.Command != "prose worker" {
		t.Errorf("exclusive beside shared: %v", err)
	}
	a()
	b()
}

// A lock file that cannot be one (a directory, a named pipe or a link in
// its place, or .serve a file) is refused naming it, with the fix, and
// never waited on.
func TestLockThatIsNotAFileSaysWhatToDo(t *testing.T) {
	for _, kind := range []string{"directory", "named pipe", "link", ".serve a file"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			p := LockPath(dir)
			os.MkdirAll(filepath.Dir(p), 0o700)
			switch kind {
			case "directory":
				os.Mkdir(p, 0o700)
			case "named pipe":
				syscall.Mkfifo(p, 0o600)
			case "link":
				os.WriteFile(p+".real", nil, 0o600)
				os.Symlink(p+".real", p)
			default:
				os.RemoveAll(filepath.Dir(p))
				os.WriteFile(filepath.Dir(p), nil, 0o600)
			}
			release, err := Lock(context.Background(), dir, LockOptions{Command: "test"})
			if err == nil {
				release()
				t.Fatal("locked")
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "remove what is in its place") {
				t.Errorf("got %v, want an error naming %s and the fix", err, p)
			}
		})
	}
}

// A lock held by a prose serve, which keeps it while it runs, is refused
// with the way through that server, not --wait (which would wait for the
// server to be stopped); another holder's refusal offers --wait.
func TestLockHeldByServeSaysToSendToIt(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ holder, want, not string }{
		{"prose serve", "--server URL", "--wait"},
		{"prose run", "--wait", "--server"},
	} {
		release, err := Lock(context.Background(), dir, LockOptions{Command: tc.holder})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Lock(context.Background(), dir, LockOptions{Command: "prose trigger"})
		release()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
			t.Errorf("held by %s: %v, want %q and not %q", tc.holder, err, tc.want, tc.not)
		}
	}
}
