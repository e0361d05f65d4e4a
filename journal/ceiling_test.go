package journal

import (
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// A run whose size ceiling is raised above the default (prose run
// --max-value-bytes) journals a result above the default ceiling, and
// its replay compares it; under the default ceiling the same result is
// refused with a clear error.
func TestResultAboveTheDefaultCeiling(t *testing.T) {
	big := strings.Repeat("x", int(delegation.DefaultMaxValueBytes)+10)
	opt := Options{MaxValueBytes: 2 * delegation.DefaultMaxValueBytes}
	base := t.TempDir()
	r, err := Create(base, newHeader("x"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(big, nil); err != nil {
		t.Fatalf("finish with a raised ceiling: %v", err)
	}
	r.Close()
	rp, err := Replay(base, r.ID(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := rp.Finish(big, nil); err != nil {
		t.Errorf("replay with a raised ceiling: %v", err)
	}
	rp.Close()

	d, _ := Create(t.TempDir(), newHeader("x"), Options{})
	defer d.Close()
	if err := d.Finish(big, nil); err == nil || !strings.Contains(err.Error(), "size ceiling") {
		t.Errorf("finish under the default ceiling: %v, want a size ceiling error", err)
	}
}
