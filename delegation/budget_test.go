package delegation

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// runGuarded runs code on the default limits (no MaxSteps, no
// MaxValueBytes) unless host sets them. The context's generous deadline
// only guards against a run that never stops: reaching it fails the test.
func runGuarded(t *testing.T, ctx context.Context, code string, globals map[string]Value, host *Host) (Value, error) {
	t.Helper()
	if host == nil {
		host = &Host{}
	}
	if host.Caller == nil {
		host.Caller = newCaller()
	}
	if host.Runtime == nil {
		host.Runtime = newFakeRuntime()
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := Run(ctx, parse(t, code), globals, host)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the run did not stop by itself: %v", err)
	}
	return v, err
}

// limitErr runs code on the default limits and wants a KindLimit error
// whose text holds every fragment (the first being its position).
func limitErr(t *testing.T, code string, host *Host, frags ...string) {
	t.Helper()
	_, err := runGuarded(t, context.Background(), code, nil, host)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindLimit {
		t.Fatalf("want a limit error, got %v", err)
	}
	wantErr(t, err, frags...)
}

// sharedTree is `t = [t, t]` n times in the language.
const sharedTree = "let t = [\"leaf\"]\nrepeat 40:\n  t = [t, t]\n"

// Doubling a string each statement stops at the value size ceiling, at
// the + that would pass it.
func TestStringDoublingStops(t *testing.T) {
	limitErr(t, "let s = \"x\"\nrepeat 100:\n  s = s + s\nreturn s.length", nil,
		"test.md:3:9: the joined string (32 MiB) would pass the value size ceiling of 32 MiB")
	// A host's own ceiling applies: 2^10 bytes of "x" pass 1000 bytes.
	limitErr(t, "let s = \"x\"\nrepeat 100:\n  s = s + s\nreturn s.length", &Host{MaxValueBytes: 1000},
		"test.md:3:9: the joined string (1 KiB) would pass the value size ceiling of 1000 bytes")
	// Below the ceiling, the join works and .length counts characters.
	v, err := runGuarded(t, context.Background(), "let s = \"é\"\nrepeat 12:\n  s = s + s\nreturn [s.length, s.length]", nil, nil)
	if err != nil || js(t, v) != "[4096,4096]" {
		t.Fatalf("got %v, %v", v, err)
	}
}

// Growing a list with + in a long loop copies it each time; the copies
// run out the default step budget quickly, at the +.
func TestListConcatenationLoopStops(t *testing.T) {
	limitErr(t, "let xs = []\nrepeat 100000 as i:\n  xs = xs + [i]\nreturn xs.length", nil,
		"test.md:3:11: step budget of 100000 statements exceeded (each + of lists counts a step per 256 elements it copies: append grows a list in place)")
	// Doubling a list stops at the ceiling: each element takes two bytes
	// written out.
	limitErr(t, "let xs = [1]\nrepeat 100:\n  xs = xs + xs\nreturn xs.length", &Host{MaxValueBytes: 4096},
		"test.md:3:11: the joined list (2048 elements, at least 2 bytes each written out) would pass the value size ceiling of 4 KiB")
}

// Comparing two long lists over and over runs out the step budget at the
// ==: each comparison counts a step per 256 elements.
func TestLongListEqualityStops(t *testing.T) {
	code := "let xs = [0]\nrepeat 16:\n  xs = xs + xs\nlet ys = xs + []\nrepeat 100000:\n  let same = xs == ys\nreturn 1"
	limitErr(t, code, nil, "test.md:6:17: step budget of 100000 statements exceeded (comparing, copying or writing out a value counts a step per 256 elements or 16 KiB")
	// Joining a long list into a string is charged the same way.
	code = "let xs = [0]\nrepeat 16:\n  xs = xs + xs\nrepeat 100000:\n  let s = \"\" + xs\nreturn 1"
	limitErr(t, code, nil, "test.md:5:14: step budget of 100000 statements exceeded")
	// A single comparison of short lists costs no more than its statement.
	host := &Host{MaxSteps: 4}
	if _, err := runGuarded(t, context.Background(), "let xs = [1, 2, 3]\nlet ys = [1, 2, 3]\nlet same = xs == ys\nreturn same", nil, host); err != nil {
		t.Fatal(err)
	}
}

// A value built by sharing, `t = [t, t]` forty times, is 2^40 leaves when
// written out. Returning it (to be printed), comparing it, joining it to a
// string and passing it to a call each stop at the ceiling, at the
// statement that asked.
func TestSharedValueHitsTheCeiling(t *testing.T) {
	limitErr(t, sharedTree+"return t", nil,
		"test.md:4:1: the returned value: value larger than the size ceiling of 32 MiB (Host.MaxValueBytes; shared parts count each time")
	limitErr(t, sharedTree+"let u = t\nreturn t == u", nil, "test.md:5:10: cannot compare: value larger than the size ceiling of 32 MiB")
	limitErr(t, sharedTree+"let s = \"\" + t\nreturn 1", nil, "test.md:4:12: the text of list: value larger than the size ceiling of 32 MiB")
	caller := newCaller().on("w", echo)
	_, err := runGuarded(t, context.Background(), sharedTree+"let r = call w\n  x: t\nreturn r", map[string]Value{"w": svc("w")}, &Host{Caller: caller})
	wantErr(t, err, "test.md:4:9: the arguments of the call: value larger than the size ceiling")
	if caller.calls.Load() != 0 {
		t.Errorf("the service was called with the oversized value")
	}
	// The package's encoders and Equal stop too.
	tree := NewList("leaf")
	for range 40 {
		tree = NewList(tree, tree)
	}
	if _, err := ToJSON(tree); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ToJSON: %v", err)
	}
	if _, err := ToIndentedJSON(tree); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ToIndentedJSON: %v", err)
	}
	if Equal(tree, tree) {
		t.Errorf("Equal of a value past the ceiling is true")
	}
	if _, err := EqualContext(context.Background(), tree, tree, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("EqualContext: %v", err)
	}
	// A global that large is refused before the run copies it.
	_, err = runGuarded(t, context.Background(), "return 1", map[string]Value{"t": tree}, nil)
	wantErr(t, err, "the value of t", "size ceiling")
}

// cancelService cancels the run when its name is read, which happens only
// when a comparison or an encoding reaches it, deep inside a walk.
type cancelService struct{ cancel context.CancelFunc }

func (s cancelService) ServiceName() string { s.cancel(); return "canceller" }

// A comparison or a text encoding of a huge shared value, allowed by a
// ceiling far above it, stops when the run is canceled.
func TestCancellationStopsLongWalks(t *testing.T) {
	for _, tc := range []struct{ code, pos string }{
		{"let u = [s]\nrepeat 40:\n  u = [u, u]\nreturn t == u", "test.md:7:10"},
		{"return \"\" + t", "test.md:4:11"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		code := "let t = [s]\nrepeat 40:\n  t = [t, t]\n" + tc.code
		host := &Host{MaxValueBytes: 1 << 62, MaxSteps: 1 << 30}
		_, err := runGuarded(t, ctx, code, map[string]Value{"s": cancelService{cancel}}, host)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindCanceled || !errors.Is(err, context.Canceled) {
			t.Fatalf("want a cancellation, got %v", err)
		}
		wantErr(t, err, tc.pos+": run canceled")
		cancel()
	}
	// The library's entry points take a context too.
	ctx, cancel := context.WithCancel(context.Background())
	tree := NewList(cancelService{cancel})
	for range 40 {
		tree = NewList(tree, tree)
	}
	if _, err := EncodeJSON(ctx, tree, EncodeOptions{MaxBytes: 1 << 62}); !errors.Is(err, context.Canceled) {
		t.Errorf("EncodeJSON: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	tree = NewList(cancelService{cancel})
	for range 40 {
		tree = NewList(tree, tree)
	}
	if _, err := EqualContext(ctx, tree, tree, 1<<62); !errors.Is(err, context.Canceled) {
		t.Errorf("EqualContext: %v", err)
	}
}

// .length of a string counts its characters (runes) and charges the walk:
// reading the length of a 1 MiB string in a long loop runs out the step
// budget at the .length, as other walks over values do.
func TestLongStringLengthIsCharged(t *testing.T) {
	got := mustRun(t, `let s = "é" + "ab"
return s.length`, nil, nil)
	if got != "3" {
		t.Errorf("length %s", got)
	}
	code := "let s = \"x\"\nrepeat 20:\n  s = s + s\nrepeat 20000:\n  let n = s.length\nreturn 1"
	limitErr(t, code, nil, "test.md:5:13: step budget of 100000 statements exceeded (comparing, copying or writing out a value counts a step per 256 elements or 16 KiB")
}

// BenchmarkBudgetStops is how long each runaway program runs, on the
// default limits, before the budget or the ceiling stops it.
func BenchmarkBudgetStops(b *testing.B) {
	for _, c := range []struct{ name, code string }{
		{"string-doubling", "let s = \"x\"\nrepeat 100:\n  s = s + s\nreturn 1"},
		{"list-concat-loop", "let xs = []\nrepeat 100000 as i:\n  xs = xs + [i]\nreturn 1"},
		{"long-list-equality", "let xs = [0]\nrepeat 16:\n  xs = xs + xs\nlet ys = xs + []\nrepeat 100000:\n  let same = xs == ys\nreturn 1"},
		{"shared-return", sharedTree + "return t"},
		{"shared-compare", sharedTree + "let u = t\nreturn t == u"},
	} {
		b.Run(c.name, func(b *testing.B) {
			prog := parse(b, c.code)
			for range b.N {
				_, err := Run(context.Background(), prog, nil, &Host{Runtime: newFakeRuntime()})
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindLimit {
					b.Fatalf("want a limit error, got %v", err)
				}
			}
		})
	}
}

// Passing a long list to every call is charged when something inside it
// changed since the last call: freezing the arguments walks its lists
// and objects (half a unit per one found unchanged, a unit per element
// copied), so the loop runs out the budget at the call. A list that
// grows by one element between calls is copied only in its new elements,
// and a value in which nothing changed (nested or not) is not walked at
// all.
func TestCallArgumentsAreCharged(t *testing.T) {
	caller := newCaller().on("w", func(context.Context, *CallRequest) (Value, error) { return int64(1), nil })
	g := map[string]Value{"w": svc("w")}
	code := "let inner = [0]\nlet xs = [inner]\nrepeat 14:\n  xs = xs + xs\nrepeat 19000:\n  append 1 to inner\n  let r = call w\n    xs: xs\nreturn 1"
	_, err := runGuarded(t, context.Background(), code, g, &Host{Caller: caller, MaxSteps: 40000})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindLimit {
		t.Fatalf("want a limit error, got %v", err)
	}
	wantErr(t, err, "test.md:7:11: step budget of 40000 statements exceeded (a call's arguments count a step per 256 elements copied, or 512 found unchanged")
	// The same nested list passed unchanged costs nothing beyond the
	// statements.
	code = "let xs = [[0]]\nrepeat 14:\n  xs = xs + xs\nrepeat 19000:\n  let r = call w\n    xs: xs\nreturn 1"
	if _, err := runGuarded(t, context.Background(), code, g, &Host{Caller: caller, MaxSteps: 20000}); err != nil {
		t.Fatal(err)
	}
	// A flat list passed unchanged costs nothing beyond the statements.
	code = "let xs = [0]\nrepeat 16:\n  xs = xs + xs\nrepeat 3000:\n  let r = call w\n    xs: xs\nreturn 1"
	if _, err := runGuarded(t, context.Background(), code, g, &Host{Caller: caller, MaxSteps: 6500}); err != nil {
		t.Fatal(err)
	}
	// A ratchet's growing list: 3,000 calls with lists of up to 3,000
	// elements fit in 12,000 steps.
	code = "let xs = []\nrepeat 3000 as i:\n  let r = call w\n    xs: xs\n  append i to xs\nreturn xs.length"
	if _, err := runGuarded(t, context.Background(), code, g, &Host{Caller: caller, MaxSteps: 12000}); err != nil {
		t.Fatal(err)
	}
}

// Numbers, booleans and null count their written length toward the
// ceiling, not one byte each: 1000 sixteen-digit integers are 17 KB
// written out, 2000 nulls 10 KB.
func TestCeilingCountsNumbersAsWritten(t *testing.T) {
	host := func() *Host { return &Host{MaxValueBytes: 8192} }
	big := "let xs = []\nrepeat 1000:\n  append 1000000000000000 to xs\n"
	limitErr(t, big+"return xs", host(), "test.md:4:1: the returned value: value larger than the size ceiling of 8 KiB")
	nulls := "let xs = []\nrepeat 2000:\n  append null to xs\n"
	limitErr(t, nulls+"return xs", host(), "test.md:4:1: the returned value: value larger than the size ceiling of 8 KiB")
	flags := "let xs = []\nrepeat 1700:\n  append false to xs\n"
	limitErr(t, flags+"return xs", host(), "test.md:4:1: the returned value")
	caller := newCaller().on("w", echo)
	h := host()
	h.Caller = caller
	_, err := runGuarded(t, context.Background(), big+"let r = call w\n  x: xs\nreturn 1", map[string]Value{"w": svc("w")}, h)
	wantErr(t, err, "test.md:4:9: the arguments of the call: value larger than the size ceiling of 8 KiB")
	// Below the ceiling, the same values pass: 400 of them are 6.8 KB.
	if _, err := runGuarded(t, context.Background(), strings.Replace(big, "1000:", "400:", 1)+"return xs", nil, host()); err != nil {
		t.Fatal(err)
	}
}
