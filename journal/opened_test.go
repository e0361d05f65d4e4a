package journal

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// Open reads a journal once for both what a rerun needs before its run
// is prepared (the request, the sources) and the run it feeds: the Log it
// gives holds the sessions and sources, not the calls, and the Run made
// from it answers the calls without reading the journal again.
func TestOpenedLogAndRunShareOneReading(t *testing.T) {
	base := t.TempDir()
	svc := &fakeSvc{name: "svc", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return "answer " + req.Path.Key(), nil
	}}
	h := newHeader("x")
	h.Request = []byte(`{"spec":"first"}`)
	run, err := Create(base, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := run.WrapCaller(fakeCaller{})
	paths := []delegation.Path{delegation.MustParsePath("L1"), delegation.MustParsePath("L2")}
	for _, p := range paths {
		if _, err := c.Call(context.Background(), &delegation.CallRequest{Path: p, Service: svc, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.KeepSource("a.prose.md", []byte("# a\n")); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish("done", nil); err != nil {
		t.Fatal(err)
	}
	run.Close()

	op, err := Open(base, run.ID(), Resuming, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(op.Log().Request()); got != `{"spec":"first"}` {
		t.Errorf("Log().Request() = %s, want the header's", got)
	}
	var types []string
	for _, rec := range op.Log().Records {
		types = append(types, rec.Type)
	}
	if got := strings.Join(types, " "); got != "source final" {
		t.Errorf("the opened Log holds %q, want only what its methods read (source final)", got)
	}
	res, err := op.Run(Options{Request: []byte(`{"spec":"second"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Run(Options{}); err == nil {
		t.Error("a second Run of one Opened was not refused")
	}
	op.Close() // the Run owns the journal: this must not unlock it
	if _, err := Resume(base, run.ID(), Options{}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a second resume while the first runs: %v, want the journal in use", err)
	}
	rc := res.WrapCaller(fakeCaller{})
	for _, p := range paths {
		v, err := rc.Call(context.Background(), &delegation.CallRequest{Path: p, Service: svc, Attempt: 1})
		if err != nil || v != "answer "+p.Key() {
			t.Errorf("%s: %v, %v", p, v, err)
		}
	}
	if n := svc.calls.Load(); n != 2 {
		t.Errorf("the service ran %d times, want 2 (the resume re-ran a journaled call)", n)
	}
	res.Close()

	// The session the resume journaled is what the next one re-runs.
	op, err = Open(base, run.ID(), Replaying, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(op.Log().Request()); got != `{"spec":"second"}` {
		t.Errorf("after a resume, Log().Request() = %s, want the session's", got)
	}
	op.Close()
}

// A resume's Open holds the journal's lock until Run or Close: a rerun
// that stops before its run starts (a spec that no longer loads) releases
// it.
func TestOpenedResumeLocksUntilClosed(t *testing.T) {
	base := t.TempDir()
	run, err := Create(base, newHeader("x"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Finish("done", nil); err != nil {
		t.Fatal(err)
	}
	run.Close()
	op, err := Open(base, run.ID(), Resuming, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(base, run.ID(), Resuming, Options{}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a second resume while the journal is open: %v, want the journal in use", err)
	}
	op.Close()
	op2, err := Open(base, run.ID(), Resuming, Options{})
	if err != nil {
		t.Fatalf("after Close, the journal is still locked: %v", err)
	}
	op2.Close()
	if _, err := Open(base, run.ID(), Live, Options{}); err == nil {
		t.Error("Open of a live run was not refused")
	}
}
