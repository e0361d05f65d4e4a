package serve

import (
	"fmt"
	"io"
	"sync"
)

// durationBuckets are the upper bounds, in seconds, of the drain duration
// histogram.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Metrics counts what a Server did since it started.
type Metrics struct {
	mu                                  sync.Mutex
	triggers, dups, drains, drainErrors int64
	renders, skips, failures            int64
	tokensIn, tokensOut                 int64
	buckets                             []int64
	sumSeconds                          float64
}

func (m *Metrics) init() { m.buckets = make([]int64, len(durationBuckets)) }

// Triggered counts an acknowledged trigger (dup: a duplicate event).
func (m *Metrics) Triggered(dup bool) {
	m.mu.Lock()
	m.triggers++
	if dup {
		m.dups++
	}
	m.mu.Unlock()
}

// Drained counts a finished drain.
func (m *Metrics) Drained(o *Outcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buckets == nil {
		m.init()
	}
	m.drains++
	if o.Error != "" {
		m.drainErrors++
	}
	m.renders += int64(o.Rendered)
	m.skips += int64(o.Skipped)
	m.failures += int64(o.Failed)
	m.tokensIn += int64(o.TokensIn)
	m.tokensOut += int64(o.TokensOut)
	sec := float64(o.MS) / 1000
	m.sumSeconds += sec
	for i, b := range durationBuckets {
		if sec <= b {
			m.buckets[i]++
		}
	}
}

// Write prints the metrics in Prometheus's text exposition format, with
// depth as the queue depth gauge.
func (m *Metrics) Write(w io.Writer, depth int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buckets == nil {
		m.init()
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	counter("prose_serve_triggers_total", "Triggers acknowledged.", m.triggers)
	counter("prose_serve_duplicate_events_total", "Events that repeated one the gateway was given before.", m.dups)
	counter("prose_serve_drains_total", "Drains finished.", m.drains)
	counter("prose_serve_drain_errors_total", "Drains that ended in an error.", m.drainErrors)
	counter("prose_serve_renders_total", "Nodes rendered.", m.renders)
	counter("prose_serve_skips_total", "Nodes woken with an unmoved memo key (skipped).", m.skips)
	counter("prose_serve_failures_total", "Renders that failed.", m.failures)
	// One series per direction (label type, as the GenAI conventions'
	// gen_ai.token.type), never their sum: input and output tokens are
	// priced and limited apart.
	name := "prose_serve_tokens_total"
	fmt.Fprintf(w, "# HELP %s Model tokens spent, by type (input, output).\n# TYPE %s counter\n%s{type=\"input\"} %d\n%s{type=\"output\"} %d\n",
		name, name, name, m.tokensIn, name, m.tokensOut)
	fmt.Fprintf(w, "# HELP prose_serve_queue_depth Triggers queued and not yet answered.\n# TYPE prose_serve_queue_depth gauge\nprose_serve_queue_depth %d\n", depth)
	name = "prose_serve_drain_duration_seconds"
	fmt.Fprintf(w, "# HELP %s Drain durations.\n# TYPE %s histogram\n", name, name)
	for i, b := range durationBuckets {
		fmt.Fprintf(w, "%s_bucket{le=\"%g\"} %d\n", name, b, m.buckets[i])
	}
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %g\n%s_count %d\n", name, m.drains, name, m.sumSeconds, name, m.drains)
}
