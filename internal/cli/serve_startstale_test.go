package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// A contract edited while prose serve was stopped is acted on as it
// starts: its first drain is queued by the start (an edited drain, no
// trigger) and renders the node, so what GET /status serves follows the
// file before any event. A start with nothing edited queues none.
func TestServeStartRendersAnEditMadeWhileStopped(t *testing.T) {
	s, _, _ := newServedCopy(t)
	s.start()
	_, a := s.post(`{"id":"e1","kind":"click","value":1}`)
	if o := s.outcome(a.Drain); o.Rendered == 0 {
		t.Fatalf("first drain: %+v", o)
	}
	s.stop()
	summary := func() *receipt.Receipt {
		t.Helper()
		st, err := store.Open(s.state)
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.Last(storedNode(st, "count-summary"))
		if err != nil || r == nil {
			t.Fatalf("count-summary's last receipt: %v %v", r, err)
		}
		return r
	}
	before := summary()

	file := filepath.Join(s.project, "src", "count-summary.prose.md")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "- `total` — the material event count.", "- `total` — the count of material events.", 1)
	if edited == string(src) {
		t.Fatal("the corpus file changed: the edit found nothing to change")
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	s.start()
	o := s.outcome(a.Drain + 1)
	if !o.Edited || len(o.Triggers) != 0 || o.Error != "" {
		t.Fatalf("the start's drain: %+v, want an edited drain, with no trigger", o)
	}
	after := summary()
	if after.Contract == before.Contract || after.Drain <= before.Drain || after.Status != receipt.Rendered {
		t.Errorf("count-summary after the start: %s in drain %d, contract %s (before: drain %d, contract %s): want a render under the edited contract", after.Status, after.Drain, after.Contract, before.Drain, before.Contract)
	}
	s.stop()

	// Nothing edited: the next drain is the trigger's own.
	s.start()
	defer s.stop()
	_, b := s.post(`{"id":"e2","kind":"click","value":1}`)
	if o := s.outcome(b.Drain); o.Edited {
		t.Errorf("a start with nothing stale queued a drain: %+v", o)
	}
}
