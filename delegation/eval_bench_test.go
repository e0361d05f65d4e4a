package delegation

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkStatement measures interpreter overhead per executed statement:
// a loop of lets, arithmetic, conditions, appends and a call to an
// in-process service that answers at once.
func BenchmarkStatement(b *testing.B) {
	benchStatements(b, "let r = call s\n    x: x",
		map[string]Value{"s": svc("s")}, &Host{Caller: instant{}, Runtime: DefaultRuntime()})
}

// BenchmarkStatementNoCalls is BenchmarkStatement without the call:
// pure interpreter work.
func BenchmarkStatementNoCalls(b *testing.B) {
	benchStatements(b, "let r = { x: x }", nil, &Host{})
}

// benchStatements runs a 1000-iteration loop whose fourth statement is
// bindR (which binds r) and reports the time per executed statement.
func benchStatements(b *testing.B, bindR string, g map[string]Value, host *Host) {
	prog := parse(b, `
let acc = []
let total = 0
repeat 1000 as i:
  let x = i + 1
  if x meets 500:
    total = total + x
  `+bindR+`
  append r.x to acc
return total
`)
	const stmts = 3 + 1000*5 - 499 // the if's body runs 501 times
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(context.Background(), prog, g, host); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/stmts, "ns/stmt")
}

// instant is a Caller that echoes its arguments, without bookkeeping.
type instant struct{}

func (instant) Call(_ context.Context, req *CallRequest) (Value, error) { return req.Args, nil }

// BenchmarkFanOut runs 8 parallel calls to services that sleep 10..80 ms
// and reports the wall time against the slowest service.
func BenchmarkFanOut(b *testing.B) {
	prog := parse(b, `
return parallel for ms in delays:
  call s
    ms: ms
    v: ms
`)
	delays := NewList()
	for i := 1; i <= 8; i++ {
		delays.Append(int64(10 * i))
	}
	g := map[string]Value{"s": svc("s"), "delays": delays}
	host := &Host{Caller: newCaller().on("s", sleeper)}
	slowest := 80 * time.Millisecond
	b.ResetTimer()
	for range b.N {
		if _, err := Run(context.Background(), prog, g, host); err != nil {
			b.Fatal(err)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(slowest), "x-slowest")
	b.ReportMetric(float64((per - slowest).Microseconds()), "µs-overhead")
}

func ExampleRun() {
	prog := mustParse(`
let drafts = []
repeat 2 as k:
  let d = call writer
    topic: topic
    round: k
    retries 1
  append d to drafts
return { drafts: drafts, count: drafts.length }
`)
	host := &Host{Caller: callerFunc(func(_ context.Context, req *CallRequest) (Value, error) {
		topic, _ := req.Args.Get("topic")
		round, _ := req.Args.Get("round")
		return fmt.Sprintf("%s draft %d (%s)", topic, round, req.Path), nil
	})}
	v, err := Run(context.Background(), prog, map[string]Value{"writer": svc("writer"), "topic": "tides"}, host)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := ToJSON(v)
	fmt.Println(string(out))
	// Output: {"drafts":["tides draft 1 (L4/1)","tides draft 2 (L4/2)"],"count":2}
}

type callerFunc func(ctx context.Context, req *CallRequest) (Value, error)

func (f callerFunc) Call(ctx context.Context, req *CallRequest) (Value, error) { return f(ctx, req) }
