package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/delegation"
)

func TestTornLastLineIgnoredAndCutBeforeAppend(t *testing.T) {
	base := t.TempDir()
	_, id := killedRatchet(t, base, 2)
	path := base + "/" + id + "/" + FileName
	whole, _ := os.ReadFile(path)
	good, _ := Read(bytes.NewReader(whole))
	// A kill in the middle of a write leaves a prefix of a record.
	for _, torn := range []string{`{"t":"end","id":"L4/3","att`, `{"t":"end"}garbage`} {
		os.WriteFile(path, append(append([]byte{}, whole...), torn...), 0o600)
		l, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%q: %v", torn, err)
		}
		if !l.Torn || len(l.Records) != len(good.Records) || l.Size != int64(len(whole)) {
			t.Errorf("%q: torn=%v records=%d size=%d, want torn, %d records, size %d", torn, l.Torn, len(l.Records), l.Size, len(good.Records), len(whole))
		}
	}
	r, err := Resume(base, id, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := newRatchetWorld()
	if _, err := runWith(t, r, mustParse(t, ratchetCode), w.globals(6), context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	l, err := ReadFile(path)
	if err != nil || l.Torn || l.Final() == nil {
		t.Fatalf("after resume: %v, torn=%v, final=%v", err, l != nil && l.Torn, l != nil && l.Final() != nil)
	}
	if w.adv.calls.Load() != 4 {
		t.Errorf("resume made %d advancer calls, want 4", w.adv.calls.Load())
	}
}

func TestCorruptMiddleLineIsAnError(t *testing.T) {
	base := t.TempDir()
	_, id := killedRatchet(t, base, 2)
	path := base + "/" + id + "/" + FileName
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	lines[2] = "not json\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err = %v, want one naming line 3", err)
	}
	if _, err := Read(strings.NewReader(`{"t":"header","v":99}` + "\n")); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("newer format: %v", err)
	}
}

func TestJudgmentsAnsweredFromJournal(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader(ratchetCode), Options{})
	w := newRatchetWorld()
	if _, err := runWith(t, r, mustParse(t, ratchetCode), w.globals(3), context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	// Replay with a judge that would fail: every verdict comes from the journal.
	rp, _ := Replay(base, r.ID(), Options{})
	j := rp.WrapJudge(failingJudge{})
	for i := 1; i <= 3; i++ {
		vals := delegation.NewObject()
		verdict := delegation.NewObject()
		verdict.Set("verdict", map[bool]string{true: "certify", false: "reject"}[i%2 == 1])
		vals.Set("verdict", verdict)
		vals.Set("proposal", fmt.Sprintf("step %d (L4/%d)", i/2+1, i))
		v, err := j.Judge(context.Background(), &delegation.Judgment{Path: delegation.MustParsePath(fmt.Sprintf("L9/%d", i)), Values: vals})
		if err != nil {
			t.Fatalf("judgment %d: %v", i, err)
		}
		if v.Holds != (i%2 == 1) || !v.Cached || v.Asked {
			t.Errorf("judgment %d: %+v", i, v)
		}
	}
	_, err := j.Judge(context.Background(), &delegation.Judgment{Path: delegation.MustParsePath("L9/1"), Values: delegation.NewObject()})
	var div *DivergenceError
	if !errors.As(err, &div) || div.What != "condition" {
		t.Errorf("an unknown judgment: %v, want a divergence", err)
	}
}

type failingJudge struct{}

func (failingJudge) Judge(context.Context, *delegation.Judgment) (delegation.Verdict, error) {
	return delegation.Verdict{}, errors.New("the judge must not be asked")
}

// firstCode races three candidates; the first to return wins.
const firstCode = `let winner = parallel for c in candidates:
  let r = call c
    n: 1
  return r
return {winner: winner}
`

func TestParallelFirstReplaysTheWinner(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader(firstCode), Options{})
	block := make(chan struct{})
	mk := func(name string, slow bool) *fakeSvc {
		return &fakeSvc{name: name, fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
			if slow {
				select {
				case <-block:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return name, nil
		}}
	}
	cands := delegation.NewList(mk("a", true), mk("b", false), mk("c", true))
	code := strings.Replace(firstCode, "parallel for", "parallel first for", 1)
	prog := mustParse(t, code)
	v, err := runWith(t, r, prog, map[string]delegation.Value{"candidates": cands}, context.Background())
	close(block)
	r.Close()
	if err != nil || toJSON(t, v) != `{"winner":"b"}` {
		t.Fatalf("live: %s, %v", toJSON(t, v), err)
	}
	l, _ := ReadFile(r.Path())
	var groups int
	for _, rec := range l.Records {
		if rec.Type == TypeGroup && rec.Winner != nil && *rec.Winner == 1 && rec.Failed == nil {
			groups++
		}
	}
	if groups != 1 {
		t.Errorf("%d group records with winner 1, want 1", groups)
	}
	rp, _ := Replay(base, r.ID(), Options{})
	got, err := runWith(t, rp, prog, map[string]delegation.Value{"candidates": cands}, context.Background())
	if err != nil || toJSON(t, got) != `{"winner":"b"}` {
		t.Errorf("replay: %s, %v", toJSON(t, got), err)
	}
}

func TestConcurrentDurableAppends(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return req.Path.Key(), nil
	}}
	c := r.WrapCaller(fakeCaller{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				c.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath(fmt.Sprintf("L1/%d/%d", g+1, i+1)), Service: svc, Attempt: 1})
			}
		}(g)
	}
	wg.Wait()
	syncs := r.w.syncs
	r.Close()
	l, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if x := newIndex(l); len(x.calls) != 400 {
		t.Errorf("%d completed calls journaled, want 400", len(x.calls))
	}
	if syncs > 400+1 {
		t.Errorf("%d fsyncs for 400 durable records", syncs)
	}
}

func TestCheckSpec(t *testing.T) {
	h := newHeader("version 1")
	if err := h.CheckSpec([]byte("version 1")); err != nil {
		t.Errorf("same spec: %v", err)
	}
	err := h.CheckSpec([]byte("version 2"))
	var sc *SpecChangedError
	if !errors.As(err, &sc) || !strings.Contains(err.Error(), "changed since the run started") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("changed spec: %v", err)
	}
}

// A parallel loop whose failing branch canceled its siblings replays to
// the same failure: the canceled siblings wait to be canceled again.
func TestReplayOfCanceledSiblings(t *testing.T) {
	base := t.TempDir()
	code := "let rs = parallel for c in cs:\n  call c\n    n: 1\nreturn rs\n"
	prog := mustParse(t, code)
	mk := func(name string, fail bool) *fakeSvc {
		return &fakeSvc{name: name, fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
			if fail {
				return nil, errors.New(name + " broke")
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	}
	cs := delegation.NewList(mk("a", false), mk("b", true), mk("c", false))
	r, _ := Create(base, newHeader(code), Options{})
	_, liveErr := runWith(t, r, prog, map[string]delegation.Value{"cs": cs}, context.Background())
	r.Close()
	if liveErr == nil || !strings.Contains(liveErr.Error(), "b broke") {
		t.Fatalf("live: %v", liveErr)
	}
	rp, _ := Replay(base, r.ID(), Options{})
	_, err := runWith(t, rp, prog, map[string]delegation.Value{"cs": cs}, context.Background())
	if err == nil || err.Error() != liveErr.Error() || rp.Err() != nil {
		t.Errorf("replay: %v (divergence %v), want %v", err, rp.Err(), liveErr)
	}
}

// A value that cannot be journaled is an error in the live run too, so a
// resume sees what the run saw.
func TestUnjournalableResultIsAnError(t *testing.T) {
	r, _ := Create(t.TempDir(), newHeader("x"), Options{})
	defer r.Close()
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return struct{ X int }{1}, nil
	}}
	v, err := r.WrapCaller(fakeCaller{}).Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Attempt: 1})
	if err == nil || v != nil || !strings.Contains(err.Error(), "cannot be journaled") {
		t.Errorf("got %v, %v; want an error", v, err)
	}
}

// A record longer than the reader's buffer (a large result) is read whole,
// its digest checked like any other's.
func TestLongRecordIsRead(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	var b strings.Builder
	last := ""
	for _, body := range []string{
		`{"t":"header","v":2,"run":"20260101T000000-aaaaaa","time":"2026-01-01T00:00:00Z","spec":"s"}`,
		`{"t":"end","time":"2026-01-01T00:00:01Z","id":"L1","attempt":1,"slot":"s","result":"` + big + `"}`,
		`{"t":"final","time":"2026-01-01T00:00:02Z","status":"ok"}`,
	} {
		last = chainSum(nil, last, []byte(body))
		b.Write(sealLine([]byte(body), last))
	}
	l, err := Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 2 || len(l.Records[0].Result) != len(big)+2 || l.Final() == nil || l.Torn {
		t.Fatalf("read %d records, result of %d bytes, torn %v", len(l.Records), len(l.Records[0].Result), l.Torn)
	}
	// The same record edited is refused.
	edited := strings.Replace(b.String(), "xxxx", "xxxy", 1)
	if _, err := Read(strings.NewReader(edited)); err == nil {
		t.Error("an edited long record was read")
	}
}
