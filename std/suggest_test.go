package std

import (
	"strings"
	"testing"
)

func TestOpenSuggestsTheClosestPattern(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"std/ratchett", "did you mean std/ratchet?"},
		{"std/patterns/retry_with_learning.prose.md", "did you mean std/patterns/retry-with-learning.prose.md?"},
		{"std/patterns/fanout.prose.md", "did you mean std/patterns/fan-out.prose.md?"},
		{"std/nothing-like-it", "(patterns: assumption-miner, "},
	} {
		_, _, err := Open(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
}
