package execsvc

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// BenchmarkExecCall compares one exec: call (JSON arguments on stdin,
// process group, pipes, output decoding, cleanup) with a Go fork/exec
// loop running the same `/bin/sh -c` program through os/exec, its
// arguments on stdin and its stdout read. The two alternate, each going
// first every other iteration, so the machine's load weighs on both
// alike. Metrics: exec-ns/op, bare-ns/op and their ratio (target: within
// 1.1x).
func BenchmarkExecCall(b *testing.B) {
	args := delegation.NewObject()
	args.Set("task_brief", "ship release 1.2")
	args.Set("certified_progress", delegation.NewList(int64(1), int64(2)))
	input, _ := delegation.ToJSON(args)
	input = append(input, '\n')
	svc := &Service{Name: "bench", Command: "cat"}
	req := &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Args: args, Attempt: 1}
	ctx := context.Background()
	bare := func() {
		cmd := exec.Command("/bin/sh", "-c", "cat")
		cmd.Stdin = bytes.NewReader(input)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	call := func() {
		if _, err := svc.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	var execD, bareD time.Duration
	timed := func(f func()) time.Duration {
		t0 := time.Now()
		f()
		return time.Since(t0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			bareD += timed(bare)
			execD += timed(call)
		} else {
			execD += timed(call)
			bareD += timed(bare)
		}
	}
	b.ReportMetric(float64(execD.Nanoseconds())/float64(b.N), "exec-ns/op")
	b.ReportMetric(float64(bareD.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(execD)/float64(bareD), "ratio")
}

// BenchmarkServiceCall is one exec: call alone, for profiles
// (-cpuprofile, -memprofile).
func BenchmarkServiceCall(b *testing.B) {
	args := delegation.NewObject()
	args.Set("task_brief", "ship release 1.2")
	svc := &Service{Name: "bench", Command: "cat"}
	req := &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Args: args, Attempt: 1}
	b.ReportAllocs()
	for range b.N {
		if _, err := svc.Call(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
