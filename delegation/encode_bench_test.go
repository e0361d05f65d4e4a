package delegation

import (
	"crypto/sha256"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchAgainstJSON encodes the same data b.N times with ToJSON and b.N
// times with encoding/json, alternating in rounds of 64 on one OS thread,
// and measures each side's CPU time on that thread (threadClock), so that
// the load of other processes does not tilt the comparison. It reports
// each one's CPU time per encoding and the ratio "x-encoding/json": ours
// over encoding/json's (below 1 is faster).
func benchAgainstJSON(b *testing.B, v Value, goValue any) {
	out, err := ToJSON(v)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := json.Marshal(goValue); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ours, theirs time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(64, b.N-done)
		t0 := threadClock()
		for range n {
			_, _ = ToJSON(v)
		}
		t1 := threadClock()
		for range n {
			_, _ = json.Marshal(goValue)
		}
		t2 := threadClock()
		ours += t1 - t0
		theirs += t2 - t1
		done += n
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ours-cpu-ns/op")
	b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N), "json-cpu-ns/op")
	b.ReportMetric(float64(ours)/float64(theirs), "x-encoding/json")
}

// BenchmarkEncode compares ToJSON with encoding/json's Marshal of the same
// data as plain Go values (string, []any, map[string]any: what
// encoding/json decodes JSON into).
func BenchmarkEncode(b *testing.B) {
	para := "A step of the release: \"write the changelog\" for 1.2, check <links> & tags.\n\tThen tag it — café, naïve, 中文.\n"
	long := strings.Repeat(para, 40)
	b.Run("strings", func(b *testing.B) {
		benchAgainstJSON(b, long, long)
	})
	b.Run("lists", func(b *testing.B) {
		l := NewList()
		var g []any
		for i := range 1000 {
			var e Value
			switch i % 4 {
			case 0:
				e = int64(i * 7919)
			case 1:
				e = "item " + strings.Repeat("x", i%17)
			case 2:
				e = float64(i) / 8
			default:
				e = i%3 == 0
			}
			l.Append(e)
			if n, ok := e.(int64); ok {
				g = append(g, n)
			} else {
				g = append(g, e)
			}
		}
		benchAgainstJSON(b, l, g)
	})
	b.Run("objects", func(b *testing.B) {
		l := NewList()
		var g []any
		for i := range 200 {
			o := NewObject()
			m := map[string]any{}
			for _, kv := range []struct {
				k string
				v Value
			}{
				{"addresses", "step does not say how it was checked"},
				{"action", "build the binaries for " + strings.Repeat("linux ", i%5)},
				{"checked", i%2 == 0},
				{"step", int64(i)},
			} {
				o.Set(kv.k, kv.v)
				m[kv.k] = kv.v
			}
			l.Append(o)
			g = append(g, m)
		}
		benchAgainstJSON(b, l, g)
	})
}

// BenchmarkArgsFreeze is the per-call cost of snapshotting a ratchet's
// arguments: a list of 2,000 step objects that grows by one element per
// call. "memo" freezes (snapshot.go: unchanged copies reused); "reencode"
// deep-copies the arguments, encodes them and hashes the text each call, as
// a journal that hashes JSON does.
func BenchmarkArgsFreeze(b *testing.B) {
	build := func() *Object {
		progress := NewList()
		for i := range 2000 {
			o := NewObject()
			o.Set("step", int64(i))
			o.Set("action", "build the binaries for linux and darwin")
			o.Set("checked", true)
			progress.Append(o)
		}
		args := NewObject()
		args.Set("task_brief", "ship release 1.2")
		args.Set("certified_progress", progress)
		return args
	}
	grow := func(args *Object, i int) {
		p, _ := args.Get("certified_progress")
		o := NewObject()
		o.Set("step", int64(i))
		p.(*List).Append(o)
	}
	b.Run("memo", func(b *testing.B) {
		args := build()
		b.ReportAllocs()
		for i := range b.N {
			grow(args, i)
			if _, err := Freeze(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reencode", func(b *testing.B) {
		args := build()
		b.ReportAllocs()
		for i := range b.N {
			grow(args, i)
			snap, err := clone(args)
			if err != nil {
				b.Fatal(err)
			}
			raw, err := ToJSON(snap)
			if err != nil {
				b.Fatal(err)
			}
			_ = sha256.Sum256(raw)
		}
	})
}
