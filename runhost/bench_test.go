package runhost

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
)

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
		opts.Bindings.Slots = append(opts.Bindings.Slots, bind.Assignment{Name: "workers", Value: f[len("slot:workers="):]})
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
