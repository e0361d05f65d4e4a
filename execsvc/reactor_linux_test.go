package execsvc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/proselang/prose/delegation"
)

// TestOutputsShareOneReader: while programs run, their output pipes are
// read by the reactor's one goroutine, not by two goroutines a program.
func TestOutputsShareOneReader(t *testing.T) {
	const n = 16
	release := filepath.Join(t.TempDir(), "go")
	s := &Service{Name: "svc", Command: `while [ ! -e '` + release + `' ]; do sleep 0.01; done; echo 1; echo done >&2`}
	var started sync.WaitGroup
	started.Add(n)
	base := runtime.NumGoroutine()
	errs := make(chan error, n)
	for i := range n {
		go func() {
			req := &delegation.CallRequest{Path: delegation.MustParsePath(fmt.Sprintf("L1/%d", i+1)), Service: s, Attempt: 1,
				Spawned: func(int, string) { started.Done() }}
			v, err := s.Call(context.Background(), req)
			if err == nil && v != int64(1) {
				err = fmt.Errorf("value %#v, want 1", v)
			}
			errs <- err
		}()
	}
	started.Wait()
	during := runtime.NumGoroutine() - base
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	// n calls, and a few goroutines all calls share (the reactor, the
	// watchdog's reader and waiter)
	if during > n+4 {
		t.Errorf("%d goroutines more while %d programs ran, want at most %d", during, n, n+4)
	}
}

// TestAwaitOutputsReadsWithoutTheReactor is the loaded machine in
// miniature, as TestDrainReadsWholeAfterLateWakeup is for drain: the
// program has exited and its output sits in the pipe, but the reactor's
// goroutine never gets to run. awaitOutputs must read every byte itself
// and see the pipe's end, not take the reactor's silence for a pipe held
// open; and a pipe that is still open and stays empty is one.
func TestAwaitOutputsReadsWithoutTheReactor(t *testing.T) {
	r, f := openReactor() // never run
	if r == nil {
		t.Fatal("no reactor")
	}
	defer f.Close()
	pipe := func(data []byte) (*outReader, *bytes.Buffer, int) {
		rfd, wfd, err := rawPipe(true)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := syscall.Write(wfd, data); err != nil || n != len(data) {
			t.Fatalf("wrote %d bytes (%v), want %d", n, err, len(data))
		}
		var got bytes.Buffer
		o := &outReader{w: &got, done: make(chan struct{})}
		if !r.add(o, rfd) {
			t.Fatal("the reactor did not take the pipe")
		}
		return o, &got, wfd
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 3<<10) // 48 KiB: what a pipe holds
	ended, endedOut, wfd := pipe(want)
	syscall.Close(wfd) // the program exited
	held, heldOut, heldW := pipe([]byte("partial"))
	defer syscall.Close(heldW) // a process outside the group holds it
	awaitOutputs(ended, held)
	if ended.err != nil || !bytes.Equal(endedOut.Bytes(), want) {
		t.Errorf("read %d bytes, ending with %v; want %d, at the pipe's end", endedOut.Len(), ended.err, len(want))
	}
	if held.err != errPipeHeld || heldOut.String() != "partial" {
		t.Errorf("held pipe: read %q, ending with %v; want \"partial\", then errPipeHeld", heldOut, held.err)
	}
	if len(r.readers) != 0 {
		t.Errorf("%d pipes still in the reactor", len(r.readers))
	}
}
