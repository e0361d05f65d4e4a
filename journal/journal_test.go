package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
)

func newHeader(src string) Header {
	return Header{Spec: "/specs/ratchet.prose.md", SpecDigest: Digest([]byte(src))}
}

func TestLiveRunJournalsEveryCall(t *testing.T) {
	base := t.TempDir()
	r, err := Create(base, newHeader(ratchetCode), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := newRatchetWorld()
	v, err := runWith(t, r, mustParse(t, ratchetCode), w.globals(4), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	l, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, rec := range l.Records {
		counts[rec.Type]++
	}
	// In-process services start no process group: one record a call.
	if counts[TypeStart] != 0 || counts[TypeEnd] != 8 || counts[TypeJudge] != 4 || counts[TypeFinal] != 1 || len(counts) != 3 {
		t.Errorf("record counts %v, want 8 end, 4 judge, 1 final", counts)
	}
	for _, rec := range l.Records {
		if rec.Type == TypeEnd && rec.Pos == "" {
			t.Errorf("end record of %s without its position", rec.ID)
		}
	}
	fin := l.Final()
	if fin == nil || fin.Status != StatusOK || string(fin.Result) != toJSON(t, v) {
		t.Errorf("final record %+v, want ok with %s", fin, toJSON(t, v))
	}
	if l.Header.RunID != r.ID() || !strings.HasPrefix(filepath.Base(r.Dir()), r.ID()) {
		t.Errorf("header run id %q, run %q", l.Header.RunID, r.ID())
	}
}

// kill runs the ratchet until the certifier has answered `after` times,
// then cancels it as a kill would stop it, leaving the journal without a
// final record.
func killedRatchet(t *testing.T, base string, after int64) (*ratchetWorld, string) {
	t.Helper()
	r, err := Create(base, newHeader(ratchetCode), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := newRatchetWorld()
	ctx, cancel := context.WithCancel(context.Background())
	w.killAfter, w.cancel = after, cancel
	ctx2, cancel2 := r.Context(ctx)
	defer cancel2()
	host := &delegation.Host{Caller: r.WrapCaller(fakeCaller{}), Judge: r.WrapJudge(&judge.Deterministic{}), Runtime: r.WrapRuntime(nil)}
	_, err = delegation.Run(ctx2, mustParse(t, ratchetCode), w.globals(6), host)
	if err == nil {
		t.Fatal("the killed run finished")
	}
	r.Close() // no Finish: a killed process writes nothing more
	return w, r.ID()
}

func TestResumeAnswersCompletedCallsFromTheJournal(t *testing.T) {
	base := t.TempDir()
	w1, id := killedRatchet(t, base, 3)
	// The full run, uninterrupted, for comparison.
	full := newRatchetWorld()
	rf, _ := Create(t.TempDir(), newHeader(ratchetCode), Options{})
	want, err := runWith(t, rf, mustParse(t, ratchetCode), full.globals(6), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resume(base, id, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w2 := newRatchetWorld()
	got, err := runWith(t, r, mustParse(t, ratchetCode), w2.globals(6), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if toJSON(t, got) != toJSON(t, want) {
		t.Errorf("resumed result %s, want %s", toJSON(t, got), toJSON(t, want))
	}
	// Before the kill: 3 advancer and 3 certifier calls completed. The
	// resumed run must not repeat them.
	if a, c := w1.adv.calls.Load(), w1.cert.calls.Load(); a != 3 || c != 3 {
		t.Fatalf("before the kill: %d advancer, %d certifier calls, want 3 and 3", a, c)
	}
	if a, c := w2.adv.calls.Load(), w2.cert.calls.Load(); a != 3 || c != 3 {
		t.Errorf("after resume: %d advancer, %d certifier calls, want 3 and 3 (the rest)", a, c)
	}
	if r.Calls() != 12 {
		t.Errorf("Calls() = %d, want 12", r.Calls())
	}
}

func TestResumeRerunsInFlightCall(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return int64(req.Attempt), nil
	}}
	c := r.WrapCaller(fakeCaller{})
	args := delegation.NewObject()
	args.Set("a", int64(1))
	if _, err := c.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L3"), Service: svc, Args: args, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	// A start without an end: the call was running when the process died.
	r.write(&Record{Type: TypeStart, ID: delegation.MustParsePath("L4"), Attempt: 1, Args: argsDigest(args, nil)}, true)
	r.Close()

	r2, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	c2 := r2.WrapCaller(fakeCaller{})
	for _, id := range []string{"L3", "L4"} {
		if _, err := c2.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath(id), Service: svc, Args: args, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if n := svc.calls.Load(); n != 2 {
		t.Errorf("service called %d times in all, want 2 (L3 once, L4 re-run)", n)
	}
}

func TestResumeRefusesDivergingArguments(t *testing.T) {
	base := t.TempDir()
	_, id := killedRatchet(t, base, 2)
	for _, force := range []bool{false, true} {
		// Copy the journal so each case starts from the killed state.
		dir := t.TempDir()
		copyRun(t, base, dir, id)
		r, err := Resume(dir, id, Options{Force: force})
		if err != nil {
			t.Fatal(err)
		}
		w := newRatchetWorld()
		w.adv.fn = func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) { return "other", nil }
		code := strings.Replace(ratchetCode, "feedback: feedback", "feedback: feedback\n    extra: 1", 1)
		_, err = runWith(t, r, mustParse(t, code), w.globals(6), context.Background())
		r.Close()
		var div *DivergenceError
		if force {
			if err != nil {
				t.Errorf("--force: %v", err)
			}
			continue
		}
		if !errors.As(err, &div) || div.ID.Key() != "L4/1" || div.Pos.Line != 4 {
			t.Fatalf("err = %v, want a divergence at call L4/1 on line 4", err)
		}
		if !strings.Contains(err.Error(), "ratchet.prose.md:4:") || !strings.Contains(err.Error(), "arguments differ") {
			t.Errorf("message %q does not name the position and the cause", err)
		}
		if w.adv.calls.Load() != 0 {
			t.Errorf("a diverging resume called the service")
		}
		l, _ := ReadFile(r.Path())
		if fin := l.Final(); fin == nil || fin.Status != StatusDiverged {
			t.Errorf("final record %+v, want diverged", fin)
		}
	}
}

func copyRun(t *testing.T, from, to, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, id, FileName))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(to, id), 0o700)
	if err := os.WriteFile(filepath.Join(to, id, FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReplayReproducesWithoutCalls(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader(ratchetCode), Options{})
	w := newRatchetWorld()
	want, err := runWith(t, r, mustParse(t, ratchetCode), w.globals(5), context.Background())
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(r.Path())
	w2 := newRatchetWorld()
	got, err := runWith(t, rp, mustParse(t, ratchetCode), w2.globals(5), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if toJSON(t, got) != toJSON(t, want) {
		t.Errorf("replay %s, want %s", toJSON(t, got), toJSON(t, want))
	}
	if w2.adv.calls.Load()+w2.cert.calls.Load() != 0 {
		t.Errorf("replay called services")
	}
	after, _ := os.ReadFile(r.Path())
	if string(before) != string(after) {
		t.Errorf("replay wrote to the journal")
	}
	// A longer run goes beyond the journal: a divergence naming the call.
	rp2, _ := Replay(base, r.ID(), Options{})
	_, err = runWith(t, rp2, mustParse(t, ratchetCode), w2.globals(6), context.Background())
	var div *DivergenceError
	if !errors.As(err, &div) || div.ID.Key() != "L4/6" || !strings.Contains(err.Error(), "no such call") {
		t.Errorf("replay beyond the journal: %v", err)
	}
	if w2.adv.calls.Load() != 0 {
		t.Errorf("replay called a service")
	}
}

func TestReplayedErrorsKeepTheirKind(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	nested := &delegation.Error{Msg: "inner failed", Kind: delegation.KindCall, Chain: []string{"inner.prose.md:3:1"}}
	outcomes := map[string]error{"L1": errors.New("boom"), "L3": nested}
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		if req.Path.Key() == "L2" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, outcomes[req.Path.Key()]
	}}
	c := r.WrapCaller(fakeCaller{})
	call := func(c delegation.Caller, id string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_, err := c.Call(ctx, &delegation.CallRequest{Path: delegation.MustParsePath(id), Service: svc, Attempt: 1})
		return err
	}
	for _, id := range []string{"L1", "L2", "L3"} {
		call(c, id)
	}
	r.Close()
	rp, _ := Replay(base, r.ID(), Options{})
	c2 := rp.WrapCaller(fakeCaller{})
	if err := call(c2, "L1"); err == nil || err.Error() != "boom" {
		t.Errorf("L1: %v, want boom", err)
	}
	if err := call(c2, "L2"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("L2: %v, want a timeout", err)
	}
	var de *delegation.Error
	if err := call(c2, "L3"); !errors.As(err, &de) || de.Msg != "inner failed" || len(de.Chain) != 1 {
		t.Errorf("L3: %#v, want the nested error rebuilt", err)
	}
	if svc.calls.Load() != 3 {
		t.Errorf("%d service calls, want 3 (none in replay)", svc.calls.Load())
	}
}

func TestCanceledAttemptIsNotAResult(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.WrapCaller(fakeCaller{}).Call(ctx, &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Attempt: 1})
	r.Close()
	r2, _ := Resume(base, r.ID(), Options{})
	defer r2.Close()
	svc.fn = func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "live", nil }
	v, err := r2.WrapCaller(fakeCaller{}).Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Attempt: 1})
	if err != nil || v != "live" || svc.calls.Load() != 2 {
		t.Errorf("resumed canceled call: %v, %v, %d calls; want it re-run", v, err, svc.calls.Load())
	}
}
