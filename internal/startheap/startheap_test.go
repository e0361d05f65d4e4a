package startheap

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// waitPace runs collections until the pace is want or a bound of tries
// is spent (the finalizer runs on its own goroutine after a collection).
func waitPace(want int64) int64 {
	for i := 0; i < 200 && gogc() != want; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	return gogc()
}

func TestRoomThenDefaultPace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Room(32<<20, func(string) string { return "" })
	if got := gogc(); got != 800 {
		t.Fatalf("pace after Room(32 MiB) = %d, want 800", got)
	}
	if got := waitPace(100); got != 100 {
		t.Fatalf("pace after a collection = %d, want 100", got)
	}
}

func TestRoomLeavesTheUsersSetting(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	Room(32<<20, func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := gogc(); got != 50 {
		t.Fatalf("pace with GOGC=50 set = %d, want 50 kept", got)
	}
}

func TestRoomNoSmallerThanTheRuntimes(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Room(1<<20, func(string) string { return "" })
	if got := gogc(); got != 100 {
		t.Fatalf("pace after Room(1 MiB) = %d, want 100 (no change)", got)
	}
}
