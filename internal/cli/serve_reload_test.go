package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/receipt"
)

// newServedCopy is newServed over a copy of its project, which a test
// may edit, with the path and source of its counter-events gateway.
func newServedCopy(t *testing.T) (s *served, file string, src []byte) {
	t.Helper()
	s = newServed(t)
	project := t.TempDir()
	if err := os.CopyFS(project, os.DirFS(s.project)); err != nil {
		t.Fatal(err)
	}
	s.project = project
	file = filepath.Join(project, "src", "counter-events.prose.md")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return s, file, src
}

// prose serve loads an edited project again before the next drain: a
// spec error keeps the graph served before (said once, with the file and
// line) and answers the trigger; an edited contract re-renders its node.
func TestServeReloadsEditedSpec(t *testing.T) {
	s, file, src := newServedCopy(t)
	s.start()
	defer s.stop()

	_, a := s.post(`{"id":"e1","kind":"click","value":1}`)
	if o := s.outcome(a.Drain); o.Rendered == 0 || o.Reload != "" {
		t.Fatalf("first drain: %+v", o)
	}
	first := gatewayReceipts(t, s.state)

	broken := strings.Replace(string(src), "kind: gateway", "kind: gateway\nkind: gateway", 1)
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	_, a = s.post(`{"id":"e2","kind":"click","value":1}`)
	o := s.outcome(a.Drain)
	if !strings.Contains(o.Reload, "kept the graph loaded before") || !strings.Contains(o.Reload, "counter-events.prose.md:4:1") {
		t.Fatalf("after a broken edit: reload %q, want the old graph kept and the file and line named", o.Reload)
	}
	if o.Error != "" || o.Rendered == 0 {
		t.Fatalf("the drain after a failed reload did not render its event: %+v", o)
	}

	fixed := strings.Replace(string(src), "the running material event total", "the running total of material events", 1)
	if fixed == string(src) {
		t.Fatal("the corpus file changed: the edit found nothing to change")
	}
	if err := os.WriteFile(file, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, a = s.post(`{"id":"e3","kind":"view","value":2}`)
	o = s.outcome(a.Drain)
	if o.Reload != "reloaded" {
		t.Fatalf("after the fix: reload %q, want reloaded", o.Reload)
	}
	rs := gatewayReceipts(t, s.state)
	last := rs[len(rs)-1]
	if len(rs) <= len(first) || last.Status != receipt.Rendered || last.Contract == first[0].Contract {
		t.Errorf("after an edited contract the gateway's last receipt is %s, contract %s (first %s): want a render under a moved contract", last.Status, last.Contract, first[0].Contract)
	}
	s.mu.Lock()
	said := 0
	for _, l := range s.lines {
		if strings.Contains(l, "kept the graph loaded before") {
			said++
		}
	}
	s.mu.Unlock()
	if said != 1 {
		t.Errorf("the failed reload is logged %d times, want once", said)
	}
}
