package delegation

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// bigValue is a list of n step objects, as a ratchet's progress or a
// service's large answer holds.
func bigValue(n int) *List {
	l := NewList()
	for i := range n {
		o := NewObject()
		o.Set("step", int64(i))
		o.Set("action", "build the binaries for linux and darwin")
		l.Append(o)
	}
	return l
}

// BenchmarkFreezeFrozen freezes a value that is frozen already: it is
// returned as it is, whatever its size (ns/op about equal for 1e3 and 1e5
// elements).
func BenchmarkFreezeFrozen(b *testing.B) {
	for _, n := range []int{1e3, 1e5} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f, err := Freeze(bigValue(n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if c, _ := Freeze(f); c != f {
					b.Fatal("a frozen value was copied")
				}
			}
		})
	}
}

// BenchmarkFreezeParallelPass runs a delegation that passes one large
// value, unchanged, to a service in each of 8 parallel iterations, b.N
// times (one op is one pass of 8 calls, each freezing its arguments).
// The value is frozen once, before the timer starts (the `first` call);
// every later freeze finds it unchanged and reuses that copy, so ns/op
// does not grow with the value's size.
func BenchmarkFreezeParallelPass(b *testing.B) {
	for _, n := range []int{1e3, 1e5} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var calls atomic.Int64
			var first *List
			caller := newCaller().
				on("first", func(_ context.Context, req *CallRequest) (Value, error) {
					v, _ := req.Args.Get("data")
					first = v.(*List)
					b.ResetTimer()
					return nil, nil
				}).
				on("w", func(_ context.Context, req *CallRequest) (Value, error) {
					if v, _ := req.Args.Get("data"); v != any(first) {
						return nil, fmt.Errorf("the value was copied again")
					}
					calls.Add(1)
					return nil, nil
				})
			code := strings.Join([]string{
				"call first",
				"  data: big",
				fmt.Sprintf("repeat %d:", b.N),
				"  parallel for j in lanes:",
				"    call w",
				"      data: big",
				"return 1",
			}, "\n")
			lanes := NewList()
			for j := range 8 {
				lanes.Append(int64(j))
			}
			g := map[string]Value{"first": svc("first"), "w": svc("w"), "big": bigValue(n), "lanes": lanes}
			host := &Host{Caller: caller, Runtime: DefaultRuntime(), MaxSteps: 1e6 + 40*b.N, MaxValueBytes: 1 << 30}
			b.ReportAllocs()
			if _, err := Run(context.Background(), parse(b, code), g, host); err != nil {
				b.Fatal(err)
			}
			if got := calls.Load(); got != int64(8*b.N) {
				b.Fatalf("%d calls, want %d", got, 8*b.N)
			}
		})
	}
}
