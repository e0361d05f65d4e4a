package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
)

// errCaller records the error each call got back from the journal.
type errCaller struct {
	inner delegation.Caller
	mu    sync.Mutex
	errs  map[string]error
}

func (c *errCaller) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	v, err := c.inner.Call(ctx, req)
	c.mu.Lock()
	c.errs[req.Path.Key()] = err
	c.mu.Unlock()
	return v, err
}

// Replaying a run killed while two parallel calls were running stops at
// the first of them with the divergence; its sibling is canceled, not
// failed with the other call's divergence (which the progress lines then
// printed under the sibling's name).
func TestReplayOfKilledRunCancelsSiblings(t *testing.T) {
	base := t.TempDir()
	var started atomic.Int64
	release := make(chan struct{})
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		n, _ := req.Args.Get("n")
		if n.(int64) == 1 {
			return n, nil
		}
		started.Add(1)
		<-release
		return n, nil
	}}
	prog := mustParse(t, "let xs = parallel for n in [1, 2, 3]:\n  call svc\n    n: n\nreturn xs\n")
	globals := map[string]delegation.Value{"svc": svc}
	r, _ := Create(base, newHeader("x"), Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runWith(t, r, prog, globals, context.Background())
	}()
	for started.Load() < 2 {
		// the start records of both blocked calls are on disk once
		// their calls began
		select {
		case <-done:
			t.Fatal("the run ended early")
		default:
			goruntime.Gosched()
		}
	}
	killed, err := os.ReadFile(r.Path()) // the journal as kill -9 leaves it
	close(release)
	<-done
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	base2 := t.TempDir()
	os.MkdirAll(filepath.Join(base2, r.ID()), 0o755)
	if err := os.WriteFile(filepath.Join(base2, r.ID(), FileName), killed, 0o600); err != nil {
		t.Fatal(err)
	}

	rp, err := Replay(base2, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	rec := &errCaller{inner: rp.WrapCaller(fakeCaller{}), errs: map[string]error{}}
	ctx, cancel := rp.Context(context.Background())
	defer cancel()
	host := &delegation.Host{Caller: rec, Judge: rp.WrapJudge(&judge.Deterministic{}), Runtime: rp.WrapRuntime(delegation.DefaultRuntime())}
	delegation.Run(ctx, prog, globals, host)
	var div *DivergenceError
	if !errors.As(rp.Err(), &div) {
		t.Fatalf("replay: %v, want a divergence", rp.Err())
	}
	for id, err := range rec.errs {
		switch {
		case id == div.ID.Key():
			if !errors.As(err, new(*DivergenceError)) {
				t.Errorf("%s (the diverging call): %v", id, err)
			}
		case err != nil && !errors.Is(err, context.Canceled):
			t.Errorf("%s: %v, want nil or canceled (the divergence is %s's)", id, err, div.ID)
		}
	}
	if svc.calls.Load() != 3 {
		t.Errorf("the replay called the service")
	}
}
