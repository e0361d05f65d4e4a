package llm

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// Usage is a snapshot of a run's model use. A runner prints it at the end
// of a run and writes it in the trace.
type Usage struct {
	// ModelCalls counts completed chat requests (judge and slot calls).
	ModelCalls int64 `json:"model_calls"`
	// Retries counts extra HTTP attempts after retryable failures.
	Retries   int64 `json:"retries"`
	TokensIn  int64 `json:"tokens_in"`
	TokensOut int64 `json:"tokens_out"`
	// JudgeCalls counts judgments that asked a model.
	JudgeCalls int64 `json:"judge_calls"`
	// JudgeCached counts judgments answered from the run's verdict cache.
	JudgeCached int64 `json:"judge_cached"`
	// JudgeAvoided counts judgments decided without a model (a
	// deterministic judge's Stats().Decided: the runner fills it in).
	JudgeAvoided int64 `json:"judge_avoided"`
}

// String is the one-line summary for stderr, e.g.
// "model calls: 3 (1 retry), tokens: 812 in / 64 out, judgments: 2 asked, 1 cached, 5 decided without a model".
func (u Usage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model calls: %d", u.ModelCalls)
	if u.Retries > 0 {
		fmt.Fprintf(&b, " (%d %s)", u.Retries, plural(u.Retries, "retry", "retries"))
	}
	fmt.Fprintf(&b, ", tokens: %d in / %d out", u.TokensIn, u.TokensOut)
	fmt.Fprintf(&b, ", judgments: %d asked, %d cached, %d decided without a model",
		u.JudgeCalls, u.JudgeCached, u.JudgeAvoided)
	return b.String()
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Add returns the field-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		ModelCalls:   u.ModelCalls + v.ModelCalls,
		Retries:      u.Retries + v.Retries,
		TokensIn:     u.TokensIn + v.TokensIn,
		TokensOut:    u.TokensOut + v.TokensOut,
		JudgeCalls:   u.JudgeCalls + v.JudgeCalls,
		JudgeCached:  u.JudgeCached + v.JudgeCached,
		JudgeAvoided: u.JudgeAvoided + v.JudgeAvoided,
	}
}

// Meter accumulates Usage; it is safe for concurrent use. A Client owns
// one; every judge and slot service built on the client adds to it.
type Meter struct {
	calls, retries, in, out atomic.Int64
	judged, cached, avoided atomic.Int64
}

// Snapshot returns the totals so far.
func (m *Meter) Snapshot() Usage {
	return Usage{
		ModelCalls:   m.calls.Load(),
		Retries:      m.retries.Load(),
		TokensIn:     m.in.Load(),
		TokensOut:    m.out.Load(),
		JudgeCalls:   m.judged.Load(),
		JudgeCached:  m.cached.Load(),
		JudgeAvoided: m.avoided.Load(),
	}
}

// AddAvoided counts n judgments decided without a model.
func (m *Meter) AddAvoided(n int64) { m.avoided.Add(n) }

func (m *Meter) addCall(in, out int) {
	m.calls.Add(1)
	m.in.Add(int64(in))
	m.out.Add(int64(out))
}
