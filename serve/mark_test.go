package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// A state directory served on Temporal is not served (or drained) here:
// New refuses, naming the workflow and the file to remove.
func TestNewRefusesAStateServedOnTemporal(t *testing.T) {
	g, diags, err := graph.Load("testdata/redeliver")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	mark := TemporalMark(st.Dir)
	os.MkdirAll(filepath.Dir(mark), 0o755)
	if err := os.WriteFile(mark, []byte("workflow prose-serve-1 on task queue q at h:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err == nil || !strings.Contains(err.Error(), "prose-serve-1") || !strings.Contains(err.Error(), mark) {
		t.Fatalf("New over a state served on Temporal: %v", err)
	}
	// The refusal released the lock: once the mark is gone it serves.
	os.Remove(mark)
	s, err = New(Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
