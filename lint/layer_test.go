package lint

import (
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// lint reads specs, never what serves them: a cadence is spec knowledge
// (spec/cadence), so lint imports no package of serve.
func TestLintDoesNotImportServe(t *testing.T) {
	for p := range testenv.Deps(t, testenv.Module+"/lint") {
		if p == testenv.Module+"/serve" || strings.HasPrefix(p, testenv.Module+"/serve/") {
			t.Errorf("package lint imports %s (directly or not)", p)
		}
	}
}
