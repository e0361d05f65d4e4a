package journal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// delayed returns n services that answer after a random delay of up to
// 1ms: every third one (in a race of more than 100, every other one too)
// fails; the others succeed only once noted, the service a loser calls
// after it has recorded its failure, has been called 3 times, so that
// losers record their failures before a winner is found however the
// goroutines are scheduled.
func delayed(n int) (cs []delegation.Value, noted delegation.Value) {
	var recorded atomic.Int64
	enough := make(chan struct{})
	noted = &fakeSvc{name: "noted", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		if recorded.Add(1) == 3 {
			close(enough)
		}
		return "noted", nil
	}}
	for i := range n {
		name := fmt.Sprintf("s%d", i)
		cs = append(cs, &fakeSvc{name: name, fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
			fail := i%3 == 0 || (n > 100 && i%2 == 0)
			t := time.NewTimer(time.Duration(rand.IntN(1000)) * time.Microsecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if fail {
				return nil, errors.New(name + " is down")
			}
			select {
			case <-enough:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return name, nil
		}})
	}
	return cs, noted
}

// notedRace is raceCode with each loser calling noted once its failure
// is in the list.
const notedRace = `let failures = []
let won = parallel first for c in candidates:
  try:
    let r = call c
      n: 1
    return r
  catch as problem:
    append problem.message to failures
    call noted
      n: 0
return {won: won, failures: failures}
`

// A 200-candidate race whose losers record their failures in a shared
// list, and a parallel fan-out that appends as answers come, both with
// services answering after random delays: each replays to the live result
// 50 times in a row, whatever order the replay's goroutines run in. The
// answers are handed out by path in journal order; nothing waits for
// time.
func TestReplayIsDeterministic(t *testing.T) {
	const fanOut = `let seen = []
let rs = parallel for c in cs:
  try:
    let r = call c
      n: 1
    append r to seen
    let again = call c
      n: 2
    append again to seen
    r
  catch as problem:
    append problem.message to seen
    call noted
      n: 0
    "down"
return {rs: rs, seen: seen}
`
	for _, tc := range []struct {
		name, code string
		globals    func() map[string]delegation.Value // fresh services
	}{
		{"race", notedRace, func() map[string]delegation.Value {
			cs, noted := delayed(200)
			return map[string]delegation.Value{"candidates": delegation.NewList(cs...), "noted": noted}
		}},
		{"fan-out", fanOut, func() map[string]delegation.Value {
			cs, noted := delayed(60)
			return map[string]delegation.Value{"cs": delegation.NewList(cs...), "noted": noted}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := mustParse(t, tc.code)
			base := t.TempDir()
			// Several live runs, each answered in another order, each
			// replayed 50 times to its own result.
			for run := range 3 {
				globals := tc.globals()
				r, _ := Create(base, newHeader(tc.code), Options{SyncEvery: time.Hour})
				live, err := runWith(t, r, prog, globals, context.Background())
				r.Close()
				if err != nil {
					t.Fatalf("live %d: %v", run+1, err)
				}
				want := toJSON(t, live)
				if !strings.Contains(want, "is down") {
					t.Fatalf("live result %s: want some failures recorded", want)
				}
				if tc.name == "race" && !strings.Contains(want, `"won":"s`) {
					t.Fatalf("live result %s: want a candidate as the winner", want)
				}
				for i := range 50 {
					rp, err := Replay(base, r.ID(), Options{})
					if err != nil {
						t.Fatal(err)
					}
					got, err := runWith(t, rp, prog, globals, context.Background())
					if err != nil || toJSON(t, got) != want {
						t.Fatalf("live run %d, replay %d: %s, %v\nwant %s", run+1, i+1, toJSON(t, got), err, want)
					}
				}
			}
		})
	}
}

// unreadable is a judge whose model answered something that is not a
// verdict: an error that `try` may catch.
type unreadable struct{ asked int }

type unreadableErr struct{}

func (unreadableErr) Error() string   { return `the model's verdict "maybe" is not yes or no` }
func (unreadableErr) Catchable() bool { return true }

func (u *unreadable) Judge(context.Context, *delegation.Judgment) (delegation.Verdict, error) {
	u.asked++
	return delegation.Verdict{}, unreadableErr{}
}

// A try that caught an unreadable verdict replays and resumes to the live
// result: the journal keeps that the error was catchable.
func TestCaughtUnreadableVerdictReplays(t *testing.T) {
	const code = `let r = call svc
  n: 1
try:
  if r is good enough:
    return "good"
catch as e:
  return {caught: e.message, kind: e.kind}
return "not good"
`
	prog := mustParse(t, code)
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "meh", nil }}
	globals := map[string]delegation.Value{"svc": svc}
	run := func(r *Run, j delegation.Judge) (string, error) {
		ctx, cancel := r.Context(context.Background())
		defer cancel()
		host := &delegation.Host{Caller: r.WrapCaller(fakeCaller{}), Judge: r.WrapJudge(j), Runtime: r.WrapRuntime(nil)}
		v, err := delegation.Run(ctx, prog, globals, host)
		r.Finish(v, err)
		r.Close()
		return toJSON(t, v), err
	}
	base := t.TempDir()
	j := &unreadable{}
	r, _ := Create(base, newHeader(code), Options{})
	want, err := run(r, j)
	if err != nil || !strings.Contains(want, "caught") {
		t.Fatalf("live: %s, %v", want, err)
	}
	rp, _ := Replay(base, r.ID(), Options{})
	if got, err := run(rp, j); err != nil || got != want {
		t.Errorf("replay: %s, %v; want %s", got, err, want)
	}
	rs, _ := Resume(base, r.ID(), Options{})
	if got, err := run(rs, j); err != nil || got != want {
		t.Errorf("resume: %s, %v; want %s", got, err, want)
	}
	if j.asked != 1 {
		t.Errorf("the model was asked %d times; want once (replay and resume answer from the journal)", j.asked)
	}
}
