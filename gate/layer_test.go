package gate_test

import (
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// gate decides how a gate is answered; what a run recorded of it reaches
// it as a delegation.GateState, from whoever holds the record: gate does
// not read journals itself.
func TestGateDoesNotImportJournal(t *testing.T) {
	deps := testenv.Deps(t, testenv.Module+"/gate")
	if deps[testenv.Module+"/journal"] {
		t.Error("package gate imports package journal (directly or not)")
	}
}
