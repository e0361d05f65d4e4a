package delegation

import (
	"strings"
	"testing"
)

// JSON round trips keep integers as integers, key order, and refuse
// numbers that do not fit a float64 instead of turning them into null.
func TestJSONNumbers(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`{"b":1,"a":2.5,"c":-3}`, `{"b":1,"a":2.5,"c":-3}`},
		{`[9007199254740993]`, `[9007199254740993]`},
		{`[12345678901234567890]`, `[1.2345678901234567e+19]`},
		{`[1e3]`, `[1000]`},
	} {
		v, err := FromJSON([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got, _ := ToJSON(v)
		if string(got) != tc.out {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.out)
		}
	}
	if _, err := FromJSON([]byte(`{"f": 1e400}`)); err == nil || !strings.Contains(err.Error(), "1e400 is out of range") {
		t.Errorf("1e400: err = %v", err)
	}
}
