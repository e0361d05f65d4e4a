package journal

import (
	"context"
	"errors"
	"testing"

	"github.com/proselang/prose/delegation"
)

// A resume takes the journal's lock before it reads the journal. Here the
// run it resumes is still appending when the resume opens the journal: it
// completes a call, records its outcome and ends while the resume waits
// to take the lock. The resume then sees all of it: it re-runs nothing,
// and what it appends chains to the run's last record.
func TestResumeRacingTheEndOfItsRunLocksFirst(t *testing.T) {
	base := t.TempDir()
	svc := &fakeSvc{name: "svc", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return "answer " + req.Path.Key(), nil
	}}
	l1, l2 := delegation.MustParsePath("L1"), delegation.MustParsePath("L2")
	run, err := Create(base, Header{Spec: "/s/race.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := run.WrapCaller(fakeCaller{})
	if _, err := c.Call(context.Background(), &delegation.CallRequest{Path: l1, Service: svc, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	ended := false
	res, err := Resume(base, run.ID(), Options{locking: func() {
		// The run's last call and its end, while the resume waits for
		// the lock the run holds.
		if _, err := c.Call(context.Background(), &delegation.CallRequest{Path: l2, Service: svc, Attempt: 1}); err != nil {
			t.Error(err)
		}
		if err := run.Finish("done", nil); err != nil {
			t.Error(err)
		}
		run.Close()
		ended = true
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !ended {
		t.Fatal("the resume did not open the journal before locking it")
	}
	rc := res.WrapCaller(fakeCaller{})
	for _, p := range []delegation.Path{l1, l2} {
		v, err := rc.Call(context.Background(), &delegation.CallRequest{Path: p, Service: svc, Attempt: 1})
		if err != nil || v != "answer "+p.Key() {
			t.Errorf("%s: %v, %v", p, v, err)
		}
	}
	if n := svc.calls.Load(); n != 2 {
		t.Errorf("the service ran %d times, want 2 (the resume re-ran a call the run had finished)", n)
	}
	if fin, err := res.idx.finalRecord(); err != nil || fin == nil || fin.Status != StatusOK {
		t.Errorf("the resume did not see the run's end: %+v, %v", fin, err)
	}
	if err := res.Finish("done", nil); err != nil {
		t.Fatal(err)
	}
	res.Close()
	l, err := ReadFile(res.Path())
	if err != nil {
		var ed *EditedError
		if errors.As(err, &ed) {
			t.Fatalf("the chain is broken: %v", err)
		}
		t.Fatal(err)
	}
	var types []string
	for _, r := range l.Records {
		types = append(types, r.Type)
	}
	want := []string{TypeEnd, TypeEnd, TypeFinal, TypeSession, TypeFinal}
	if len(types) != len(want) {
		t.Fatalf("records %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("records %v, want %v", types, want)
		}
	}
}
