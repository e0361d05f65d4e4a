package lintcli

import (
	"runtime"
	"testing"
)

// Overlapping commands on one processor give the process back its
// processors when the last of them ends, whatever order they end in.
func TestOneProcessorOverlapping(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if before == 1 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		before = 2
	}
	a := OneProcessor()
	b := OneProcessor()
	a()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("one of two commands ended: %d processors, want 1", got)
	}
	a() // a second call does nothing
	b()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("both ended: %d processors, want the %d before", got, before)
	}
}
