package execsvc

import (
	"os"
	"testing"

	"github.com/proselang/prose/internal/procgroup"
)

// TestMain lets the test binary be its own watchdog, as prose is: the
// programs of these tests start behind procgroup's gate.
func TestMain(m *testing.M) {
	procgroup.Init()
	os.Exit(m.Run())
}
