//go:build live

package llm

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestLiveJudge asks a real provider one judgment. It runs only with
// `go test -tags live ./llm/` and PROSE_MODEL (plus OPENAI_API_KEY and
// OPENAI_BASE_URL as needed) set; never in CI.
func TestLiveJudge(t *testing.T) {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil || !cfg.Configured() {
		t.Skip("PROSE_MODEL not set")
	}
	c, err := NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mj := NewModelJudge(c, JudgeOptions{Pattern: "ratchet"})
	yes, err := mj.Judge(ctx, judgment(t, certifiesCond, `{"verdict": "The step is correct and I certify it without reservation."}`))
	if err != nil {
		t.Fatal(err)
	}
	no, err := mj.Judge(ctx, judgment(t, certifiesCond, `{"verdict": "This step is wrong; I reject it."}`))
	if err != nil {
		t.Fatal(err)
	}
	if !yes.Holds || no.Holds {
		t.Errorf("certify: %+v; reject: %+v", yes, no)
	}
	t.Logf("usage: %s", c.Usage())
}
