package journal

import (
	"bytes"
	"context"
	"errors"
	"os"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/delegation"
)

// A resume of a run that a failing call ended runs that call live again
// (all its attempts), while every call before it is still answered from
// the journal; a replay reproduces the failure without any call.
func TestResumeOfFailedRunRetriesTheFailingCall(t *testing.T) {
	base := t.TempDir()
	w := newRatchetWorld()
	var broken atomic.Bool
	broken.Store(true)
	okCert := w.cert.fn
	w.cert.fn = func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		if broken.Load() && strings.HasSuffix(req.Path.Key(), "/3") {
			return nil, errors.New("certifier down")
		}
		return okCert(ctx, req)
	}
	prog := mustParse(t, strings.Replace(ratchetCode, "    proposed_step: proposal\n", "    proposed_step: proposal\n    retries 1\n", 1))
	r, _ := Create(base, newHeader("x"), Options{})
	if _, err := runWith(t, r, prog, w.globals(4), context.Background()); err == nil || !strings.Contains(err.Error(), "certifier down") {
		t.Fatalf("first run: %v", err)
	}
	r.Close()
	adv0, cert0 := w.adv.calls.Load(), w.cert.calls.Load() // 3 and 4 (two attempts of L?/3)

	// Still broken: the failing call runs again, with its retries, and
	// fails the same way; nothing before it runs.
	r2, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runWith(t, r2, prog, w.globals(4), context.Background()); err == nil || !strings.Contains(err.Error(), "certifier down") {
		t.Fatalf("resume while broken: %v", err)
	}
	r2.Close()
	if a, c := w.adv.calls.Load()-adv0, w.cert.calls.Load()-cert0; a != 0 || c != 2 {
		t.Errorf("resume while broken: %d advancer and %d certifier calls, want 0 and 2", a, c)
	}

	// Replay answers the failure from the journal.
	adv1, cert1 := w.adv.calls.Load(), w.cert.calls.Load()
	r3, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runWith(t, r3, prog, w.globals(4), context.Background()); err == nil || !strings.Contains(err.Error(), "certifier down") {
		t.Fatalf("replay: %v", err)
	}
	r3.Close()
	if w.adv.calls.Load() != adv1 || w.cert.calls.Load() != cert1 {
		t.Errorf("replay called a service")
	}

	// Fixed: the resume finishes; only the failed call and what follows
	// it run.
	broken.Store(false)
	r4, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := runWith(t, r4, prog, w.globals(4), context.Background())
	r4.Close()
	if err != nil {
		t.Fatalf("resume after the fix: %v", err)
	}
	if a, c := w.adv.calls.Load()-adv1, w.cert.calls.Load()-cert1; a != 1 || c != 2 {
		t.Errorf("resume after the fix: %d advancer and %d certifier calls, want 1 (step 4) and 2 (steps 3, 4)", a, c)
	}
	if got := toJSON(t, v); !strings.Contains(got, "step 1") || !strings.Contains(got, "step 2") {
		t.Errorf("result %s", got)
	}
}

// A failure that the delegation caught is part of the run's history: a
// resume of the run (failed later by a throw) answers it from the journal.
func TestResumeKeepsCaughtFailures(t *testing.T) {
	base := t.TempDir()
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return nil, errors.New("flaky")
	}}
	prog := mustParse(t, "try:\n  call svc\n    a: 1\ncatch as e:\n  throw \"gave up: \" + e.message\n")
	globals := map[string]delegation.Value{"svc": svc}
	r, _ := Create(base, newHeader("x"), Options{})
	if _, err := runWith(t, r, prog, globals, context.Background()); err == nil {
		t.Fatal("want the thrown error")
	}
	r.Close()
	r2, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runWith(t, r2, prog, globals, context.Background())
	r2.Close()
	if err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("resume: %v", err)
	}
	if n := svc.calls.Load(); n != 1 {
		t.Errorf("service called %d times, want 1 (the caught failure is journaled)", n)
	}
}

// A parallel loop failed by one branch: the resume re-runs only that
// branch's call; the branches that finished come from the journal.
func TestResumeOfFailedParallelBranch(t *testing.T) {
	base := t.TempDir()
	var broken atomic.Bool
	broken.Store(true)
	release := make(chan struct{})
	var done atomic.Int64
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		n, _ := req.Args.Get("n")
		if n.(int64) == 2 && broken.Load() {
			<-release // the others have ended
			return nil, errors.New("branch 2 down")
		}
		defer done.Add(1)
		return n, nil
	}}
	prog := mustParse(t, "let xs = parallel for n in [1, 2, 3]:\n  call svc\n    n: n\nreturn xs\n")
	globals := map[string]delegation.Value{"svc": svc}
	r, _ := Create(base, newHeader("x"), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Branch 2 fails once the other two branches' end records are in
		// the journal file (written, not yet synced, as each call ends).
		for done.Load() < 2 || countEnds(r.Path()) < 2 {
			if ctx.Err() != nil {
				return
			}
			goruntime.Gosched()
		}
		close(release)
	}()
	if _, err := runWith(t, r, prog, globals, context.Background()); err == nil || !strings.Contains(err.Error(), "branch 2 down") {
		t.Fatalf("run: %v", err)
	}
	r.Close()
	broken.Store(false)
	before := svc.calls.Load()
	r2, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := runWith(t, r2, prog, globals, context.Background())
	r2.Close()
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got := toJSON(t, v); got != "[1,2,3]" {
		t.Errorf("result %s", got)
	}
	if n := svc.calls.Load() - before; n != 1 {
		t.Errorf("resume called the service %d times, want 1 (branch 2)", n)
	}
	// A replay of the resumed run answers the group as the resume ran
	// it (every iteration to its end), not as the failed run's record
	// said it was decided.
	before = svc.calls.Load()
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err = runWith(t, rp, prog, globals, context.Background())
	rp.Close()
	if err != nil {
		t.Fatalf("replay of the resumed run: %v", err)
	}
	if got := toJSON(t, v); got != "[1,2,3]" {
		t.Errorf("replay result %s", got)
	}
	if n := svc.calls.Load() - before; n != 0 {
		t.Errorf("replay called the service %d times", n)
	}
}

// countEnds counts the "end" records of call attempts in the journal at path.
func countEnds(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(line, []byte(`"t":"end"`)) {
			n++
		}
	}
	return n
}
