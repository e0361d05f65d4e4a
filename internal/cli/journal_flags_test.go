package cli

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30m": 30 * time.Minute, "7d": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1d", "3w", "d"} {
		if _, err := parseAge(bad); err == nil {
			t.Errorf("parseAge(%q) accepted", bad)
		}
	}
}

func TestSyncWindow(t *testing.T) {
	if d, err := syncWindow("always"); err != nil || d != 0 {
		t.Errorf("always: %v %v", d, err)
	}
	if d, err := syncWindow("250ms"); err != nil || d != 250*time.Millisecond {
		t.Errorf("250ms: %v %v", d, err)
	}
	if _, err := syncWindow("soon"); err == nil {
		t.Errorf("soon accepted")
	}
}
