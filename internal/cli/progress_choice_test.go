package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// A choice a model decided shows the label picked, not "false".
func TestProgressShowsAPick(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true)
	p.Record(&delegation.Event{Kind: "judgment", Path: delegation.MustParsePath("L17"), Condition: "best recovery path for failure", Duration: time.Second,
		Verdict: &delegation.Verdict{Pick: "fallback", Asked: true, Model: "m1"}})
	if want := `prose: L17 judged "best recovery path for failure": picked "fallback" (m1, 1s)`; !strings.Contains(b.String(), want) {
		t.Errorf("got:\n%s\nwant a line:\n%s", b.String(), want)
	}
}
