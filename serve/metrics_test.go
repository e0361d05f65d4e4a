package serve

import (
	"strings"
	"testing"
)

// Input and output tokens are two series of one counter, never their sum.
func TestMetricsTokensByType(t *testing.T) {
	var m Metrics
	m.Drained(&Outcome{TokensIn: 30, TokensOut: 7, Tokens: 37})
	m.Drained(&Outcome{TokensIn: 5, TokensOut: 1, Tokens: 6})
	var b strings.Builder
	m.Write(&b, 0)
	out := b.String()
	for _, want := range []string{
		"# TYPE prose_serve_tokens_total counter\n",
		"prose_serve_tokens_total{type=\"input\"} 35\n",
		"prose_serve_tokens_total{type=\"output\"} 8\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "prose_serve_tokens_total 43") {
		t.Errorf("tokens summed into one series:\n%s", out)
	}
}
