package patterns

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// BenchmarkExecCall compares one exec: call (JSON arguments on stdin,
// process group, pipes, output decoding, cleanup) with a bare fork/exec of
// the same program through os/exec. Metrics: exec-ns/op, bare-ns/op and
// their ratio (target: within 1.3x).
func BenchmarkExecCall(b *testing.B) {
	args := delegation.NewObject()
	args.Set("task_brief", "ship release 1.2")
	args.Set("certified_progress", delegation.NewList(int64(1), int64(2)))
	input, _ := delegation.ToJSON(args)
	svc := &ExecService{Name: "bench", Command: "cat"}
	req := &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Args: args, Attempt: 1}
	ctx := context.Background()
	var execD, bareD time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		cmd := exec.Command("/bin/sh", "-c", "cat")
		cmd.Stdin = bytes.NewReader(input)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := svc.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		bareD += t1.Sub(t0)
		execD += t2.Sub(t1)
	}
	b.ReportMetric(float64(execD.Nanoseconds())/float64(b.N), "exec-ns/op")
	b.ReportMetric(float64(bareD.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(execD)/float64(bareD), "ratio")
}

// BenchmarkFanOut runs a parallel for over 8 exec services that each sleep
// 200ms and reports the run's wall time against the slowest service
// (wall/slowest; 1.0 would be no overhead at all).
func BenchmarkFanOut(b *testing.B) {
	const slowest = 200 * time.Millisecond
	var flags []string
	for range 8 {
		flags = append(flags, "slot:workers=exec:sleep 0.2; echo 1")
	}
	path := demo(b, "fan-out-sleep.prose.md")
	var opts RunOptions
	opts.Path = path
	for _, f := range flags {
		opts.Bindings.Slots = append(opts.Bindings.Slots, Assignment{Name: "workers", Value: f[len("slot:workers="):]})
	}
	p, err := Prepare(opts)
	if err != nil {
		b.Fatal(err)
	}
	var wall time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		v, err := p.Run(context.Background())
		wall += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if l, ok := v.(*delegation.List); !ok || l.Len() != 8 {
			b.Fatal(fmt.Sprint(v))
		}
	}
	b.ReportMetric(float64(wall)/float64(b.N)/float64(slowest), "wall/slowest")
}
