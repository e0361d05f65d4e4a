package journal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
)

// keptCode is a `parallel first` whose iterations append to an outer list
// before one of them returns: what the list holds depends on which
// iterations ended before the win.
const keptCode = `let seen = []
let won = parallel first for c in cs:
  let r = call c
    n: 1
  append r to seen
  if r == "win":
    return r
return {won: won, seen: seen}
`

// runLimited is runWith at a given MaxParallel.
func runLimited(t testing.TB, r *Run, prog *syntax.Program, globals map[string]delegation.Value, limit int) (delegation.Value, error) {
	t.Helper()
	ctx, cancel := r.Context(context.Background())
	defer cancel()
	host := &delegation.Host{
		Caller:      r.WrapCaller(fakeCaller{}),
		Judge:       r.WrapJudge(&judge.Deterministic{}),
		Runtime:     r.WrapRuntime(delegation.DefaultRuntime()),
		MaxParallel: limit,
	}
	v, err := delegation.Run(ctx, prog, globals, host)
	if div := r.Err(); div != nil {
		err = div
	}
	if ferr := r.Finish(v, err); ferr != nil && err == nil {
		err = ferr
	}
	return v, err
}

// keptWorld runs keptCode at MaxParallel 2 so that, whatever the
// goroutines do, iteration 0 ends before the win (iteration 2 starts only
// once its slot is free, and iteration 1 wins only once 2 has started),
// iteration 1 wins and iteration 2 is canceled by the win.
func keptWorld() (map[string]delegation.Value, []*fakeSvc) {
	cStarted := make(chan struct{})
	a := &fakeSvc{name: "a", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "a", nil }}
	b := &fakeSvc{name: "b", fn: func(ctx context.Context, _ *delegation.CallRequest) (delegation.Value, error) {
		select {
		case <-cStarted:
			return "win", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	c := &fakeSvc{name: "c", fn: func(ctx context.Context, _ *delegation.CallRequest) (delegation.Value, error) {
		close(cStarted)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	return map[string]delegation.Value{"cs": delegation.NewList(a, b, c)}, []*fakeSvc{a, b, c}
}

func svcCalls(svcs []*fakeSvc) (n int64) {
	for _, s := range svcs {
		n += s.calls.Load()
	}
	return n
}

// The outcome of a decided group is journaled under its path: the winner,
// how many iterations started and which ended after the win. A replay (in
// which every answer is instant, so any iteration could finish first) and
// a resume answer the group from that record and keep exactly the appends
// the run kept, every time, calling no service.
func TestGroupOutcomeIsJournaledAndAnswered(t *testing.T) {
	prog := mustParse(t, keptCode)
	globals, svcs := keptWorld()
	base := t.TempDir()
	r, _ := Create(base, newHeader(keptCode), Options{})
	want, err := runLimited(t, r, prog, globals, 2)
	r.Close()
	if err != nil || toJSON(t, want) != `{"won":"win","seen":["a","win"]}` {
		t.Fatalf("live: %s, %v", toJSON(t, want), err)
	}
	l, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	var groups []*Record
	for _, rec := range l.Records {
		if rec.Type == TypeGroup {
			groups = append(groups, rec)
		}
	}
	if len(groups) != 1 || groups[0].ID.Key() != "L2" || groups[0].Winner == nil || *groups[0].Winner != 1 ||
		groups[0].Failed != nil || groups[0].Started != 3 || !slices.Equal(groups[0].Dropped, []int{2}) {
		t.Fatalf("group records %+v, want one: L2 won by 1 of 3 started, 2 dropped", groups)
	}
	calls := svcCalls(svcs)
	for range 20 {
		rp, err := Replay(base, r.ID(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := runLimited(t, rp, prog, globals, 2)
		rp.Close()
		if err != nil || toJSON(t, got) != toJSON(t, want) {
			t.Fatalf("replay: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
		}
		// The canceled iteration is not run again: its answers changed
		// nothing the run kept.
		if rp.Calls() != 2 || rp.Answered() != 2 {
			t.Fatalf("replay answered %d of %d calls, want 2 of 2", rp.Answered(), rp.Calls())
		}
	}
	rs, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runLimited(t, rs, prog, globals, 2)
	rs.Close()
	if err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("resume: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
	}
	if n := svcCalls(svcs); n != calls {
		t.Errorf("replay and resume made %d service calls", n-calls)
	}
}

// rewrite rewrites each line of the journal at path with edit (nil: drop
// the line) and reseals the chain under the test's journal key, as a
// prose that wrote the result would have.
func rewrite(t *testing.T, path string, edit func(line string) (string, bool)) {
	t.Helper()
	key, err := UserKey()
	if err != nil {
		t.Fatal(err)
	}
	resealWith(t, key, path, edit)
}

// resealWith rewrites each line of the journal at path with edit
// (false: drop the line) and seals the chain again under key (nil: the
// unkeyed digests of format version 2).
func resealWith(t *testing.T, key []byte, path string, edit func(line string) (string, bool)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	last := ""
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		body, _, ok := splitSeal([]byte(line))
		if !ok {
			t.Fatalf("line without a sum: %s", line)
		}
		text, keep := edit(string(body) + "}")
		if !keep {
			continue
		}
		last = chainSum(key, last, []byte(text))
		out.Write(sealLine([]byte(text), last))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// asFormat3 makes the journal at path one that format 3 wrote: the header
// says v 3 and the group record is the "first" record format 3 wrote,
// its order the iterations that finished, in the order they did.
func asFormat3(t *testing.T, path, order string) {
	rewrite(t, path, func(line string) (string, bool) {
		switch {
		case strings.HasPrefix(line, `{"t":"header"`):
			return strings.Replace(line, `"v":5,`, `"v":3,`, 1), true
		case strings.HasPrefix(line, `{"t":"group"`):
			return `{"t":"first","time":"2026-11-30T00:00:00Z","id":"L2","winner":1,"order":` + order + `}`, true
		}
		return line, true
	})
}

// Journals written before groups were journaled (format 3) are replayed,
// their "first" records read as group records, and the replay's result is
// checked as always; one whose result comes out otherwise says the format
// may be why. A resume refuses them, saying why and what to do.
func TestFormat3JournalsReplayButDoNotResume(t *testing.T) {
	if FormatVersion != 5 {
		t.Fatalf("format %d: decide what this prose does with format %d journals and test it", FormatVersion, FormatVersion-1)
	}
	prog := mustParse(t, keptCode)
	globals, svcs := keptWorld()
	base := t.TempDir()
	r, _ := Create(base, newHeader(keptCode), Options{})
	want, err := runLimited(t, r, prog, globals, 2)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	asFormat3(t, r.Path(), "[0,1]")
	calls := svcCalls(svcs)

	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runLimited(t, rp, prog, globals, 2)
	rp.Close()
	if err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("replay of format 3: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
	}

	_, err = Resume(base, r.ID(), Options{})
	var ue *UngroupedError
	if !errors.As(err, &ue) || ue.Version != 3 || !strings.Contains(err.Error(), "does not record how its parallel groups ended") ||
		!strings.Contains(err.Error(), "prose replay "+r.ID()) || !strings.Contains(err.Error(), "run the spec again") {
		t.Errorf("resume of format 3: %v, want it refused with why and what to do", err)
	}
	if n := svcCalls(svcs); n != calls {
		t.Errorf("%d service calls", n-calls)
	}

	// A format 3 journal whose first record kept only the winner: the
	// replay keeps what it says.
	globals2, _ := keptWorld()
	r2, _ := Create(base, newHeader(keptCode), Options{})
	runLimited(t, r2, prog, globals2, 2)
	r2.Close()
	rewrite(t, r2.Path(), func(line string) (string, bool) {
		return strings.Replace(line, `"result":{"won":"win","seen":["a","win"]}`, `"result":{"won":"win","seen":["win"]}`, 1), true
	})
	asFormat3(t, r2.Path(), "[1]")
	rp, err = Replay(base, r2.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = runLimited(t, rp, prog, globals2, 2)
	rp.Close()
	if err != nil || toJSON(t, got) != `{"won":"win","seen":["win"]}` {
		t.Errorf("replay of format 3 with a first record keeping only the winner: %s, %v", toJSON(t, got), err)
	}
	// One whose result no replay gives (format 3 once appended in the
	// order iterations finished): the difference is reported, and why
	// a format 3 journal may differ.
	rewrite(t, r2.Path(), func(line string) (string, bool) {
		return strings.Replace(line, `"seen":["win"]}`, `"seen":["win","a"]}`, 1), true
	})
	rp, err = Replay(base, r2.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runLimited(t, rp, prog, globals2, 2)
	rp.Close()
	var oe *OlderFormatError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "replay diverges from the journal: result") || !strings.Contains(err.Error(), "format 3, which does not record how parallel groups ended") {
		t.Errorf("replay of a format 3 journal that comes out otherwise: %v", err)
	}
}

// A replay whose group ends otherwise than its record says (the record
// names an iteration that does not return as the winner) diverges,
// naming the group and the iteration.
func TestReplayDivergesWhenAGroupEndsOtherwise(t *testing.T) {
	prog := mustParse(t, keptCode)
	globals, _ := keptWorld()
	base := t.TempDir()
	r, _ := Create(base, newHeader(keptCode), Options{})
	if _, err := runLimited(t, r, prog, globals, 2); err != nil {
		t.Fatal(err)
	}
	r.Close()
	rewrite(t, r.Path(), func(line string) (string, bool) {
		if strings.HasPrefix(line, `{"t":"group"`) {
			line = strings.Replace(line, `"winner":1,`, `"winner":0,`, 1)
			line = strings.Replace(line, `"dropped":[2]`, `"dropped":[1,2]`, 1)
		}
		return line, true
	})
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runLimited(t, rp, prog, globals, 2)
	rp.Close()
	var div *DivergenceError
	if !errors.As(err, &div) || div.What != "parallel group" || div.ID.Key() != "L2" ||
		!strings.Contains(err.Error(), "iteration 1 won (returned); in this run it ended without a return") {
		t.Errorf("replay: %v, want the group's divergence", err)
	}
}

// A run killed in the middle of a parallel loop (two iterations done, two
// running) resumes with the finished iterations answered from the
// journal, the others run live, and the list in index order.
func TestResumeAfterKillMidGroupAnswersFinishedIterations(t *testing.T) {
	const code = `let seen = []
parallel for n in [1, 2, 3, 4]:
  let r = call svc
    n: n
  append r to seen
return {seen: seen}
`
	prog := mustParse(t, code)
	var started atomic.Int64
	release := make(chan struct{})
	svc := &fakeSvc{name: "svc", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		n, _ := req.Args.Get("n")
		if n.(int64) <= 2 {
			return n, nil
		}
		started.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, errors.New("killed")
	}}
	base := t.TempDir()
	r, _ := Create(base, newHeader(code), Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runWith(t, r, prog, map[string]delegation.Value{"svc": svc}, context.Background())
	}()
	var killed []byte
	for {
		l, err := ReadFile(r.Path())
		if err == nil && started.Load() == 2 && countCompleted(l) == 2 {
			killed, _ = os.ReadFile(r.Path()) // the journal as kill -9 leaves it
			break
		}
		select {
		case <-done:
			t.Fatal("the run ended early")
		default:
			goruntime.Gosched()
		}
	}
	close(release)
	<-done
	r.Close()
	base2 := t.TempDir()
	os.MkdirAll(filepath.Join(base2, r.ID()), 0o700)
	if err := os.WriteFile(filepath.Join(base2, r.ID(), FileName), killed, 0o600); err != nil {
		t.Fatal(err)
	}

	live := &fakeSvc{name: "svc", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		n, _ := req.Args.Get("n")
		if n.(int64) <= 2 {
			t.Errorf("call %s ran again", req.Path)
		}
		return n, nil
	}}
	rs, err := Resume(base2, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runWith(t, rs, prog, map[string]delegation.Value{"svc": live}, context.Background())
	rs.Close()
	if err != nil || toJSON(t, got) != `{"seen":[1,2,3,4]}` {
		t.Fatalf("resume: %s, %v", toJSON(t, got), err)
	}
	if rs.Answered() != 2 || rs.Calls() != 4 || live.calls.Load() != 2 {
		t.Errorf("resume answered %d of %d calls, ran %d live; want 2 of 4, 2 live", rs.Answered(), rs.Calls(), live.calls.Load())
	}
	for _, p := range []string{"L3/1", "L3/2"} {
		if !rs.AnsweredCall(delegation.MustParsePath(p), 1) {
			t.Errorf("%s was not answered from the journal", p)
		}
	}
}

func countCompleted(l *Log) (n int) {
	for _, rec := range l.Records {
		if rec.completed() {
			n++
		}
	}
	return n
}
