package delegation

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// deepJSON is n nested arrays.
func deepJSON(n int) []byte {
	return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
}

// deepList is n nested lists, built without FromJSON.
func deepList(n int) *List {
	l := NewList()
	for i := 0; i < n; i++ {
		l = NewList(l)
	}
	return l
}

func TestDeepValuesAreCapped(t *testing.T) {
	if _, err := FromJSON(deepJSON(MaxDepth)); err != nil {
		t.Fatalf("%d levels should decode: %v", MaxDepth, err)
	}
	if _, err := FromJSON(deepJSON(10000)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("10,000 nested arrays: want ErrTooDeep, got %v", err)
	}
	deep := deepList(10000)
	if _, err := ToJSON(deep); !errors.Is(err, ErrTooDeep) {
		t.Errorf("ToJSON: want ErrTooDeep, got %v", err)
	}
	if _, err := clone(deep); !errors.Is(err, ErrTooDeep) {
		t.Errorf("clone: want ErrTooDeep, got %v", err)
	}
	if Equal(deep, deep) {
		t.Errorf("values deeper than MaxDepth compare unequal")
	}
	shallow := deepList(MaxDepth - 1)
	if _, err := ToJSON(shallow); err != nil || !Equal(shallow, deepList(MaxDepth-1)) {
		t.Errorf("a value within the cap: %v", err)
	}
}

// A list that contains itself is an error wherever it is encoded, compared
// or passed to a service, never an endless recursion.
func TestSelfContainingListIsAnError(t *testing.T) {
	_, err := run(t, "let xs = [1]\nappend xs to xs\nreturn xs == xs", nil, nil)
	wantErr(t, err, "test.md:3:11", "cannot compare", "contains itself")

	caller := newCaller().on("w", echo)
	host := &Host{Caller: caller, Runtime: newFakeRuntime()}
	_, err = run(t, "let xs = [1]\nappend xs to xs\nlet r = call w\n  xs: xs\nreturn r", map[string]Value{"w": svc("w")}, host)
	wantErr(t, err, "test.md:3:9", "arguments of the call", "nested deeper")
	if caller.calls.Load() != 0 {
		t.Errorf("the service was called with a cyclic argument")
	}

	// Returning it is an error at the return: it could never be written
	// out.
	_, err = run(t, "let xs = [1]\nappend xs to xs\nreturn xs", nil, nil)
	wantErr(t, err, "test.md:3:1: the returned value", "nested deeper")
	xs := NewList(int64(1))
	xs.Append(xs)
	if _, err := ToJSON(xs); !errors.Is(err, ErrTooDeep) {
		t.Errorf("ToJSON of a cyclic list: %v", err)
	}
}

func TestDeepGlobalsAreRefused(t *testing.T) {
	_, err := Run(context.Background(), parse(t, "return x"), map[string]Value{"x": deepList(MaxDepth + 5)}, nil)
	wantErr(t, err, "the value of x", "nested deeper")
}

// A service answering with deep data that a host decoded itself: comparing
// and passing it on fail cleanly.
func TestDeepServiceResult(t *testing.T) {
	caller := newCaller().on("deep", func(context.Context, *CallRequest) (Value, error) { return deepList(20000), nil }).on("w", echo)
	host := &Host{Caller: caller, Runtime: newFakeRuntime()}
	g := map[string]Value{"deep": svc("deep"), "w": svc("w")}
	_, err := run(t, "let d = call deep\nlet r = call w\n  d: d\nreturn r", g, host)
	wantErr(t, err, "test.md:2:9", "nested deeper")
}

// The step budget is shared by every parallel iteration and branch: work
// spread over goroutines cannot exceed it.
func TestStepBudgetCoversParallelBodies(t *testing.T) {
	for _, code := range []string{
		"parallel repeat 8:\n  repeat 500:\n    let a = 1\n",
		"let v = parallel first repeat 8:\n  repeat 500:\n    let a = 1\n",
		"parallel:\n  let x = repeat 900:\n    1\n  let y = repeat 900:\n    2\n",
	} {
		caller := newCaller()
		_, err := Run(context.Background(), parse(t, code), nil, &Host{Caller: caller, Runtime: DefaultRuntime(), MaxSteps: 1000})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindLimit {
			t.Errorf("%s: want a step-budget error, got %v", code, err)
		}
	}
}

// parallel first: when every iteration throws, nothing wins and the error
// propagates (rule 14): it is not null, and try catches it.
func TestParallelFirstEveryIterationThrows(t *testing.T) {
	host := &Host{Runtime: DefaultRuntime()}
	_, err := run(t, "let w = parallel first repeat 3 as k:\n  throw \"no \" + k\nreturn w", nil, host)
	wantErr(t, err, "test.md:2:3: uncaught throw: no ")
	got := mustRun(t, "try:\n  let w = parallel first repeat 3 as k:\n    throw { k }\ncatch as e:\n  return e.kind\nreturn \"not caught\"", nil, host)
	if got != `"throw"` {
		t.Errorf("got %s", got)
	}
}

// Cancelling the run while a call waits out its backoff ends the run
// promptly with the cancellation, which on_fail use does not replace.
func TestCancellationDuringBackoff(t *testing.T) {
	c := newCaller().on("s", func(context.Context, *CallRequest) (Value, error) { return nil, errors.New("down") })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for c.calls.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, parse(t, "let r = call s\n  retries 3\n  backoff { initial: 1h }\n  on_fail use \"fallback\"\nreturn r"), map[string]Value{"s": svc("s")}, &Host{Caller: c})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("want a cancellation, got %v", err)
		}
		if n := c.calls.Load(); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run kept sleeping after it was canceled")
	}
}

// A name bound only inside a loop that ran no iteration is unbound after
// it; the error says why, since the checker could not tell.
func TestNameOfALoopThatNeverRan(t *testing.T) {
	_, err := run(t, "repeat 0 as i:\n  let inner = 1\nreturn i", nil, nil)
	wantErr(t, err, "test.md:3:8: undefined name 'i'", "a loop that ran no iteration")
}

// Integers compare exactly, also beyond 2^53 where their float values
// coincide.
func TestLargeIntegersCompareExactly(t *testing.T) {
	got := mustRun(t, "let a = 9007199254740993\nlet b = 9007199254740992\nreturn [a == b, a != b, a > b, [a] == [b], a == 9007199254740992.0]", nil, nil)
	if got != "[false,true,true,false,true]" {
		t.Errorf("got %s", got)
	}
}

// Growing a list with + copies it each time; the copies count against the
// step budget, so the quadratic loop stops with the budget instead of
// running for minutes.
func TestListConcatenationCountsItsCopies(t *testing.T) {
	host := &Host{Runtime: newFakeRuntime(), MaxSteps: 20000}
	e := runErr(t, "let xs = []\nrepeat 19000 as i:\n  xs = xs + [i]\nreturn xs.length", nil, host)
	if e.Kind != KindLimit {
		t.Fatalf("kind %q: %v", e.Kind, e)
	}
	wantErr(t, e, "test.md:3:11: step budget of 20000 statements exceeded", "append grows a list in place")
	// Small lists cost nothing extra; append is never charged.
	got := mustRun(t, "let xs = []\nlet ys = []\nrepeat 30000 as i:\n  append i to ys\nrepeat 500 as i:\n  xs = xs + [i]\nreturn [xs.length, ys.length]", nil, nil)
	if got != "[500,30000]" {
		t.Errorf("got %s", got)
	}
}

// Call arguments are held to the depth the encoder writes, exactly: at
// the boundary the call fails at its position before the service is
// called, instead of the service failing its attempt (and being retried)
// on arguments it can never be sent.
func TestCallArgumentsDepthMatchesTheEncoder(t *testing.T) {
	for _, n := range []int{MaxDepth - 1, MaxDepth} {
		// n lists around a string; the arguments object adds one level.
		var x Value = "leaf"
		for i := 0; i < n; i++ {
			x = NewList(x)
		}
		args := NewObject()
		args.Set("x", x)
		_, encErr := ToJSON(args)
		caller := newCaller().on("w", echo)
		host := &Host{Caller: caller, Runtime: newFakeRuntime()}
		_, err := run(t, "let r = call w\n  x: x\nreturn 1", map[string]Value{"w": svc("w"), "x": x}, host)
		switch {
		case encErr == nil && (err != nil || caller.calls.Load() != 1):
			t.Errorf("%d levels encode, but the call: %v (%d calls)", n, err, caller.calls.Load())
		case encErr != nil && (err == nil || caller.calls.Load() != 0):
			t.Errorf("%d levels do not encode (%v), but the call: %v (%d calls)", n, encErr, err, caller.calls.Load())
		}
	}
}
