package delegation

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// flaky fails its first n attempts (counted per service), then answers
// with the attempt number.
func flaky(n int) func(context.Context, *CallRequest) (Value, error) {
	var count atomic.Int64
	return func(_ context.Context, req *CallRequest) (Value, error) {
		k := count.Add(1)
		if int(k) <= n {
			return nil, fmt.Errorf("boom %d", k)
		}
		return fmt.Sprintf("ok on %d", k), nil
	}
}

func TestRetriesGiveNPlusOneAttempts(t *testing.T) {
	for _, tc := range []struct {
		retries, fails int
		want           string
		calls          int
	}{
		{0, 0, `"ok on 1"`, 1},
		{2, 2, `"ok on 3"`, 3},
		{2, 5, "", 3},
		{0, 1, "", 1},
	} {
		c := newCaller().on("s", flaky(tc.fails))
		host := &Host{Caller: c, Runtime: newFakeRuntime()}
		v, err := run(t, fmt.Sprintf("\nlet r = call s\n  x: 1\n  retries %d\nreturn r\n", tc.retries), map[string]Value{"s": svc("s")}, host)
		if tc.want != "" {
			if err != nil || js(t, v) != tc.want {
				t.Errorf("retries %d fails %d: got %v, %v", tc.retries, tc.fails, v, err)
			}
		} else {
			word := "attempts"
			if tc.calls == 1 {
				word = "attempt"
			}
			wantErr(t, err, fmt.Sprintf("test.md:2:9: call 's' failed after %d %s: boom %d", tc.calls, word, tc.calls))
		}
		if n := int(c.calls.Load()); n != tc.calls {
			t.Errorf("retries %d fails %d: %d calls, want %d", tc.retries, tc.fails, n, tc.calls)
		}
		for i, id := range c.ids() {
			if want := fmt.Sprintf("L2#%d", i+1); id != want {
				t.Errorf("request %d id %s, want %s", i, id, want)
			}
		}
	}
	wantErr(t, runErr(t, "call s\n  retries -1\n", map[string]Value{"s": svc("s")}, nil), "test.md:2:11: retries must be a non-negative integer, got -1")
}

// An attempt's error marked NotRetried stops the call at that attempt,
// whatever its retries; its on_fail still applies.
func TestNotRetriedErrorStopsTheCall(t *testing.T) {
	refuse := func(context.Context, *CallRequest) (Value, error) {
		return nil, NotRetried(fmt.Errorf("the argument x is \"1\", not integer"))
	}
	c := newCaller().on("s", refuse)
	host := &Host{Caller: c, Runtime: newFakeRuntime()}
	_, err := run(t, "\nlet r = call s\n  x: \"1\"\n  retries 3\nreturn r\n", map[string]Value{"s": svc("s")}, host)
	wantErr(t, err, `test.md:2:9: call 's' failed after 1 attempt: the argument x is "1", not integer`)
	if n := int(c.calls.Load()); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
	c = newCaller().on("s", refuse)
	host = &Host{Caller: c, Runtime: newFakeRuntime()}
	v, err := run(t, "\nlet r = call s\n  x: \"1\"\n  retries 3\n  on_fail use \"fallback\"\nreturn r\n", map[string]Value{"s": svc("s")}, host)
	if err != nil || js(t, v) != `"fallback"` || c.calls.Load() != 1 {
		t.Errorf("with on_fail: %v, %v after %d attempts", v, err, c.calls.Load())
	}
}

func TestAbortErrorIsCatchable(t *testing.T) {
	c := newCaller().on("fetch", flaky(100))
	got := mustRun(t, `
try:
  call fetch
    retries 2
catch as e:
  return e
`, map[string]Value{"fetch": svc("fetch")}, &Host{Caller: c, Runtime: newFakeRuntime()})
	want := `{"message":"call 'fetch' failed after 3 attempts: boom 3","kind":"call","slot":"fetch","attempts":3}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestTimeoutIsNotRetriedAndFallbackApplies(t *testing.T) {
	var seen []time.Duration
	c := newCaller().on("slow", func(ctx context.Context, req *CallRequest) (Value, error) {
		seen = append(seen, req.Timeout)
		return nil, context.DeadlineExceeded
	})
	g := map[string]Value{"slow": svc("slow"), "topic": "api"}
	got := mustRun(t, `
let r = call slow
  retries 3
  timeout 2
  on_fail use { data: "fallback for " + topic }
return r
`, g, &Host{Caller: c, Runtime: newFakeRuntime()})
	if got != `{"data":"fallback for api"}` || c.calls.Load() != 1 || seen[0] != 2*time.Second {
		t.Errorf("got %s after %d calls, timeout %v", got, c.calls.Load(), seen)
	}
	c2 := newCaller().on("slow", c.fns["slow"])
	e := runErr(t, "call slow\n  retries 3\n  timeout 1500ms\n", g, &Host{Caller: c2, Runtime: newFakeRuntime()})
	wantErr(t, e, "test.md:1:1: call 'slow' failed after 1 attempt: timed out after 1.5s")
	if !errors.Is(e, context.DeadlineExceeded) || c2.calls.Load() != 1 {
		t.Errorf("err %v, %d calls", e, c2.calls.Load())
	}
}

func TestTimeoutCancelsABlockingService(t *testing.T) {
	var sawDone atomic.Bool
	c := newCaller().on("hang", func(ctx context.Context, req *CallRequest) (Value, error) {
		<-ctx.Done()
		sawDone.Store(true)
		return nil, errors.New("killed") // not a context error: still a timeout
	})
	v, err := run(t, "return call hang\n  retries 2\n  timeout 20ms\n  on_fail use \"late\"\n",
		map[string]Value{"hang": svc("hang")}, &Host{Caller: c})
	if err != nil || v != "late" || !sawDone.Load() || c.calls.Load() != 1 {
		t.Errorf("got %v, %v, done %v, %d calls", v, err, sawDone.Load(), c.calls.Load())
	}
}

func TestFallbackAfterExhaustionInCallerScope(t *testing.T) {
	c := newCaller().on("s", flaky(10))
	got := mustRun(t, `
let results = []
for k in [1, 2]:
  let r = call s
    retries 1
    on_fail use "fallback " + k
  append r to results
return results
`, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: newFakeRuntime()})
	if got != `["fallback 1","fallback 2"]` || c.calls.Load() != 4 {
		t.Errorf("got %s after %d calls", got, c.calls.Load())
	}
}

func TestBackoffDelaysUseTheRuntimeClock(t *testing.T) {
	rt := newFakeRuntime()
	c := newCaller().on("s", flaky(4))
	got := mustRun(t, `
return call s
  retries 4
  backoff { initial: 100ms, max: 300ms, multiplier: 2 }
`, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: rt})
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	if got != `"ok on 5"` || !reflect.DeepEqual(rt.sleeps, want) {
		t.Errorf("got %s, sleeps %v, want %v", got, rt.sleeps, want)
	}
	rt = newFakeRuntime()
	rt.jitter = 0.5
	c = newCaller().on("s", flaky(2))
	mustRun(t, "return call s\n  retries 2\n  backoff { initial: 1, multiplier: 3, jitter: 0.2 }\n",
		map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: rt})
	want = []time.Duration{1100 * time.Millisecond, 3300 * time.Millisecond}
	if !reflect.DeepEqual(rt.sleeps, want) {
		t.Errorf("jittered sleeps %v, want %v", rt.sleeps, want)
	}
	// multiplier defaults to 2 and no max is no cap; without backoff no
	// sleep at all.
	for code, want := range map[string][]time.Duration{
		"return call s\n  retries 3\n  backoff { initial: 100ms }\n": {100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond},
		"return call s\n  retries 3\n":                               nil,
	} {
		rt = newFakeRuntime()
		mustRun(t, code, map[string]Value{"s": svc("s")}, &Host{Caller: newCaller().on("s", flaky(3)), Runtime: rt})
		if !reflect.DeepEqual(rt.sleeps, want) {
			t.Errorf("%q: sleeps %v, want %v", code, rt.sleeps, want)
		}
	}
	wantErr(t, runErr(t, "call s\n  backoff { initial: 1s, factor: 2 }\n", map[string]Value{"s": svc("s")}, nil),
		"test.md:2:26: unknown backoff setting 'factor'")
	wantErr(t, runErr(t, "call s\n  timeout \"soon\"\n", map[string]Value{"s": svc("s")}, nil),
		"test.md:2:11: timeout must be a duration (500ms, 30s) or a number of seconds, got string soon")
}

func TestCallIDsAndEvents(t *testing.T) {
	rec := &events{}
	c := newCaller().on("s", flaky(1))
	mustRun(t, `
for a in [1, 2]:
  repeat 2:
    call s
      a: a
      retries 1
let p = parallel for x in [1, 2, 3]:
  call s
`, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: newFakeRuntime(), Recorder: rec})
	ids := c.ids()
	want := []string{"L4/1/1#1", "L4/1/1#2", "L4/1/2#1", "L4/2/1#1", "L4/2/2#1"}
	if !reflect.DeepEqual(ids[:5], want) {
		t.Errorf("ids %v, want %v", ids[:5], want)
	}
	par := map[string]bool{}
	for _, id := range ids[5:] {
		par[id] = true
	}
	if !par["L8/1#1"] || !par["L8/2#1"] || !par["L8/3#1"] {
		t.Errorf("parallel ids %v", ids[5:])
	}
	starts, ends := rec.kinds("call.start"), rec.kinds("call.end")
	if len(starts) != 8 || len(ends) != 8 {
		t.Fatalf("%d starts, %d ends", len(starts), len(ends))
	}
	if e := ends[0]; e.Err == nil || e.Attempt != 1 || e.Slot != "s" || e.Duration <= 0 || e.Pos.Line != 4 {
		t.Errorf("first end event %+v", e)
	}
	if e := ends[1]; e.Err != nil || e.Result != "ok on 2" || e.Attempt != 2 {
		t.Errorf("second end event %+v", e)
	}
}

// The reliability example of the retry/fallback design, as a Delegation.
const reliability = `
let f = call flaky_fetch
  key: topic
  failures_before_success: fail_count
  retries 2
  on_fail use { data: "fallback for " + topic }

if f.data == "fallback for " + topic:
  let d = call draft
    notes: "Fallback path: " + f.data
  return d.article
else:
  let d = call draft
    notes: "Fresh path: " + f.data
  return d.article
`

func TestReliabilityExample(t *testing.T) {
	for _, tc := range []struct {
		failCount int64
		want      string
	}{
		{1, "Fresh path: fetched payload for api-status"},
		{5, "Fallback path: fallback for api-status"},
	} {
		var attempts atomic.Int64
		c := newCaller().on("flaky_fetch", func(_ context.Context, req *CallRequest) (Value, error) {
			fails, _ := req.Args.Get("failures_before_success")
			if attempts.Add(1) <= fails.(int64) {
				return nil, errors.New("transient")
			}
			key, _ := req.Args.Get("key")
			o := NewObject()
			o.Set("data", "fetched payload for "+key.(string))
			return o, nil
		}).on("draft", func(_ context.Context, req *CallRequest) (Value, error) {
			notes, _ := req.Args.Get("notes")
			o := NewObject()
			o.Set("article", notes)
			return o, nil
		})
		g := map[string]Value{"flaky_fetch": svc("flaky_fetch"), "draft": svc("ops"), "topic": "api-status", "fail_count": tc.failCount}
		c.fns["ops"] = c.fns["draft"]
		v, err := run(t, reliability, g, &Host{Caller: c, Runtime: newFakeRuntime()})
		if err != nil || v != tc.want {
			t.Errorf("fail_count %d: got %v, %v", tc.failCount, v, err)
		}
		if want := min(tc.failCount+1, 3); attempts.Load() != want {
			t.Errorf("fail_count %d: %d attempts, want %d", tc.failCount, attempts.Load(), want)
		}
	}
	// Without a fallback the call aborts, reporting its three attempts.
	c := newCaller().on("flaky_fetch", flaky(5))
	code := strings.Replace(reliability, "  on_fail use { data: \"fallback for \" + topic }\n", "", 1)
	e := runErr(t, code, map[string]Value{"flaky_fetch": svc("flaky_fetch"), "draft": svc("draft"), "topic": "t", "fail_count": int64(5)},
		&Host{Caller: c, Runtime: newFakeRuntime()})
	wantErr(t, e, "test.md:2:9: call 'flaky_fetch' failed after 3 attempts: boom 3")
	if e.Attempts != 3 || e.Slot != "flaky_fetch" || e.Kind != KindCall {
		t.Errorf("error fields %+v", e)
	}
}

// expiring is a fake runtime whose call deadlines have always passed.
type expiring struct{ *fakeRuntime }

func (expiring) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, time.Unix(0, 0))
}

func TestTimeoutGoesThroughTheRuntime(t *testing.T) {
	c := newCaller().on("s", func(ctx context.Context, req *CallRequest) (Value, error) {
		return "too late", nil // answers, but after the runtime's deadline
	})
	got := mustRun(t, "return call s\n  timeout 1h\n  retries 2\n  on_fail use \"fallback\"\n",
		map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: expiring{newFakeRuntime()}})
	if got != `"fallback"` || c.calls.Load() != 1 {
		t.Errorf("got %s after %d calls", got, c.calls.Load())
	}
}

// TestCallArgumentsAreASnapshot: a service keeps what it received; a list
// that grows after the call does not change it.
func TestCallArgumentsAreASnapshot(t *testing.T) {
	var got []*Object
	c := newCaller().on("s", func(_ context.Context, req *CallRequest) (Value, error) {
		got = append(got, req.Args)
		return nil, nil
	})
	mustRun(t, `
let xs = [1]
let o = { n: 1 }
call s
  xs: xs
  o: o
append 2 to xs
o["n"] = 2
call s
  xs: xs
  o: o
`, map[string]Value{"s": svc("s")}, &Host{Caller: c, Runtime: newFakeRuntime()})
	if len(got) != 2 {
		t.Fatalf("%d calls", len(got))
	}
	if a, b := js(t, got[0]), js(t, got[1]); a != `{"xs":[1],"o":{"n":1}}` || b != `{"xs":[1,2],"o":{"n":2}}` {
		t.Errorf("first call received %s, second %s", a, b)
	}
}
