package journal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// raceCode is a race whose losers record their failures in a shared list,
// like std/patterns/race.
const raceCode = `let failures = []
let won = parallel first for c in candidates:
  try:
    let r = call c
      n: 1
    return r
  catch as problem:
    append problem.message to failures
return {won: won, failures: failures}
`

// A `parallel first` loop whose losers finished (and appended to a list)
// before the winner: resume and replay re-run those losers, in the order
// they finished, so the result is the journaled one.
func TestParallelFirstKeepsTheLosersThatFinished(t *testing.T) {
	prog := mustParse(t, raceCode)
	failed := make(chan struct{}, 2)
	mk := func(name string, fail, last bool) *fakeSvc {
		return &fakeSvc{name: name, fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
			if last { // answers once both others have failed
				for range 2 {
					<-failed
				}
				return name, nil
			}
			defer func() { failed <- struct{}{} }()
			if fail {
				return nil, errors.New(name + " is down")
			}
			return name, nil
		}}
	}
	a, b, c := mk("a", true, false), mk("b", true, false), mk("c", false, true)
	globals := map[string]delegation.Value{"candidates": delegation.NewList(a, b, c)}
	base := t.TempDir()
	r, _ := Create(base, newHeader(raceCode), Options{})
	want, err := runWith(t, r, prog, globals, context.Background())
	r.Close()
	if err != nil || !strings.Contains(toJSON(t, want), "is down") {
		t.Fatalf("live: %s, %v", toJSON(t, want), err)
	}
	calls := a.calls.Load() + b.calls.Load() + c.calls.Load()

	rp, _ := Replay(base, r.ID(), Options{})
	got, err := runWith(t, rp, prog, globals, context.Background())
	if err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("replay: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
	}
	rs, _ := Resume(base, r.ID(), Options{})
	got, err = runWith(t, rs, prog, globals, context.Background())
	rs.Close()
	if err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("resume: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
	}
	if n := a.calls.Load() + b.calls.Load() + c.calls.Load(); n != calls {
		t.Errorf("replay and resume made %d service calls", n-calls)
	}
}

// A result holding characters that JSON may escape (<, >, &) replays to
// the journaled result.
func TestReplayOfResultWithEscapableText(t *testing.T) {
	const code = `let r = call svc
  n: 1
return {r: r}
`
	prog := mustParse(t, code)
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return "L1/2>L3 <b> & co", nil
	}}
	globals := map[string]delegation.Value{"svc": svc}
	base := t.TempDir()
	r, _ := Create(base, newHeader(code), Options{})
	if _, err := runWith(t, r, prog, globals, context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	rp, _ := Replay(base, r.ID(), Options{})
	if _, err := runWith(t, rp, prog, globals, context.Background()); err != nil {
		t.Errorf("replay: %v", err)
	}
}

// Iterations of a parallel loop that append to a shared list: the
// services answer in reverse order, the list is in index order (the join
// merges the appends so, delegation/semantics.md 15a), and a replay
// (whose answers are all instant) builds the same list.
func TestParallelAnswersKeepTheJournaledOrder(t *testing.T) {
	const code = `let seen = []
parallel for c in cs:
  let r = call c
    n: 1
  append r to seen
  call tick
    who: r
return {seen: seen}
`
	prog := mustParse(t, code)
	// d answers first, then (once d has appended and ticked) c, b, a.
	names := []string{"a", "b", "c", "d"}
	gates := map[string]chan struct{}{}
	for _, n := range append(names, "e") {
		gates[n] = make(chan struct{})
	}
	close(gates["e"])
	var cs []delegation.Value
	for i, name := range names {
		next := "e"
		if i < 3 {
			next = names[i+1]
		}
		cs = append(cs, &fakeSvc{name: name, fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
			<-gates[next]
			return name, nil
		}})
	}
	tick := &fakeSvc{name: "tick", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		who, _ := req.Args.Get("who")
		if ch := gates[who.(string)]; ch != nil {
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
		return nil, nil
	}}
	globals := map[string]delegation.Value{"cs": delegation.NewList(cs...), "tick": tick}
	base := t.TempDir()
	r, _ := Create(base, newHeader(code), Options{})
	want, err := runWith(t, r, prog, globals, context.Background())
	r.Close()
	if err != nil || toJSON(t, want) != `{"seen":["a","b","c","d"]}` {
		t.Fatalf("live: %s, %v", toJSON(t, want), err)
	}
	for range 10 {
		rp, _ := Replay(base, r.ID(), Options{})
		got, err := runWith(t, rp, prog, globals, context.Background())
		if err != nil || toJSON(t, got) != toJSON(t, want) {
			t.Fatalf("replay: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
		}
	}
}
