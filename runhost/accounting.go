package runhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/proselang/prose/delegation"
)

// Accounting: the counts a run's summary reports (Totals,
// TotalsRecorder), how a run ended (RunStatus), and fanning events out
// to several recorders (Recorders). A run's trace is written by the
// journal package (journal.Trace), in the journal's schema: see
// journal/FORMAT.md.

// Totals counts a run's work.
type Totals struct {
	Calls  int `json:"calls"`  // call attempts that ended
	Failed int `json:"failed"` // attempts that threw or timed out
	// Canceled attempts were stopped by the run's end (Ctrl-C, a failed
	// sibling, a first winner), not failures of their own; Failed does
	// not count them.
	Canceled       int `json:"canceled"`
	Judgments      int `json:"judgments"` // natural-language conditions decided
	ModelJudgments int `json:"model_judgments"`
	// DecidedJudgments were decided from the data alone (expression-free
	// natural conditions answered by a deterministic rule): model calls
	// avoided.
	DecidedJudgments int `json:"decided_judgments"`
	CachedJudgments  int `json:"cached_judgments"`
	// TokensIn and TokensOut count every model request of the run:
	// judgments, llm slots and renders (as the run's model usage does).
	TokensIn  int64 `json:"tokens_in"`
	TokensOut int64 `json:"tokens_out"`
	// JudgeTokensIn and JudgeTokensOut are the judgments' share (the summary line
	// reports them beside the judgments).
	JudgeTokensIn, JudgeTokensOut int64 `json:"-"`
}

// Add accounts for one event.
func (t *Totals) Add(ev *delegation.Event) {
	switch ev.Kind {
	case delegation.EventCallEnd:
		t.Calls++
		switch {
		case ev.Err == nil:
		case errors.Is(ev.Err, context.Canceled):
			t.Canceled++
		default:
			t.Failed++
		}
	case delegation.EventJudgment:
		t.Judgments++
		if v := ev.Verdict; v != nil {
			if v.Asked {
				t.ModelJudgments++
			}
			if v.Cached {
				t.CachedJudgments++
			}
			if v.Rule != "" && !v.Asked {
				t.DecidedJudgments++
			}
			t.TokensIn += int64(v.TokensIn)
			t.TokensOut += int64(v.TokensOut)
			t.JudgeTokensIn += int64(v.TokensIn)
			t.JudgeTokensOut += int64(v.TokensOut)
		}
	case delegation.EventCallModel:
		// the tokens of llm slots and renders, so that the totals
		// agree with the run's model usage
		if x := ev.Exchange; x != nil {
			t.TokensIn += int64(x.TokensIn)
			t.TokensOut += int64(x.TokensOut)
		}
	}
}

// TotalsRecorder is a delegation.Recorder that counts a run's work.
type TotalsRecorder struct {
	mu sync.Mutex
	t  Totals
}

// Record implements delegation.Recorder.
func (r *TotalsRecorder) Record(ev *delegation.Event) {
	r.mu.Lock()
	r.t.Add(ev)
	r.mu.Unlock()
}

// Totals returns the counts so far.
func (r *TotalsRecorder) Totals() Totals {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.t
}

func digestBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// RunStatus names how a run ended: "ok", "interrupted" (canceled) or
// "error".
func RunStatus(err error) string {
	switch {
	case err == nil:
		return "ok"
	case isCancel(err):
		return "interrupted"
	case delegation.Waiting(err) != nil:
		return "waiting" // at a gate (ask_user, gate)
	}
	return "error"
}

// Recorders fans events out to several recorders (nil ones are skipped).
type Recorders []delegation.Recorder

// Record implements delegation.Recorder.
func (rs Recorders) Record(ev *delegation.Event) {
	for _, r := range rs {
		if r != nil {
			r.Record(ev)
		}
	}
}

// isCancel reports whether err ended a run by cancellation (Ctrl-C), as
// opposed to a failure, which may itself wrap a call's timeout.
func isCancel(err error) bool {
	var de *delegation.Error
	if errors.As(err, &de) {
		return de.Kind == delegation.KindCanceled
	}
	return errors.Is(err, context.Canceled)
}
