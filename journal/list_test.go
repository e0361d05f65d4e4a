package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestListSummarizesAndRemoves(t *testing.T) {
	base := t.TempDir()
	_, killed := killedRatchet(t, base, 2)
	r, err := Create(base, Header{Spec: "/s/ok.prose.md", RunID: "29991231T235959-aaaaaa", Time: time.Date(2999, 12, 31, 23, 59, 59, 0, time.UTC)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := newRatchetWorld()
	runWith(t, r, mustParse(t, ratchetCode), w.globals(2), context.Background())
	held, _ := Create(base, Header{Spec: "/s/held.prose.md", RunID: "20000101T000000-bbbbbb", Time: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}, Options{})
	defer held.Close()

	runs, err := List(base)
	if err != nil || len(runs) != 3 {
		t.Fatalf("List: %d runs, %v", len(runs), err)
	}
	if runs[0].ID != r.ID() || runs[2].ID != held.ID() {
		t.Errorf("order %s %s %s, want newest first", runs[0].ID, runs[1].ID, runs[2].ID)
	}
	byID := map[string]*Summary{}
	for _, s := range runs {
		byID[s.ID] = s
	}
	if s := byID[r.ID()]; s.Status != StatusOK || s.Calls != 4 || s.Spec != "/s/ok.prose.md" {
		t.Errorf("finished run: %+v", s)
	}
	if s := byID[killed]; s.Status != StatusIncomplete || s.Calls != 4 {
		t.Errorf("killed run: %+v (want incomplete, 4 calls)", s)
	}
	if s := byID[held.ID()]; s.Status != StatusRunning {
		t.Errorf("held run: status %s, want running", s.Status)
	}
	if _, err := Remove(base, held.ID()); err == nil || !strings.Contains(err.Error(), "running") {
		t.Errorf("Remove of a running run: %v", err)
	}
	if _, err := Remove(base, "../x"); err == nil {
		t.Errorf("Remove accepted an id with a slash")
	}
	r.Close()
	if _, err := Remove(base, r.ID()); err != nil {
		t.Fatal(err)
	}
	if runs, _ := List(base); len(runs) != 2 {
		t.Errorf("after Remove: %d runs", len(runs))
	}
	if _, err := Resume(base, "20991231T000000-cccccc", Options{}); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("Resume of a missing run: %v", err)
	}
}

func TestNewRunIDSortsByTime(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 15, 0, 0, time.UTC)
	a, b := NewRunID(t0), NewRunID(t0.Add(time.Second))
	if !strings.HasPrefix(a, "20261130T021500-") || len(a) != len("20261130T021500-ab12cd") || a >= b {
		t.Errorf("ids %q, %q", a, b)
	}
}

// A run killed and resumed later ran for the time of its sessions, not
// for the pause between them.
func TestSummaryDurationSkipsPauses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20260101T000000-abcdef")
	os.MkdirAll(dir, 0o755)
	at := func(sec int) string {
		return time.Date(2026, 1, 1, 0, 0, sec, 0, time.UTC).Format(time.RFC3339Nano)
	}
	lines := []string{
		`{"t":"header","v":1,"run":"20260101T000000-abcdef","time":"` + at(0) + `"}`,
		`{"t":"start","time":"` + at(1) + `","id":"L1","attempt":1}`,
		`{"t":"end","time":"` + at(2) + `","id":"L1","attempt":1,"result":1}`,
		// killed here; resumed 10 minutes later, for 3 seconds
		`{"t":"session","time":"` + at(600) + `","mode":"resume"}`,
		`{"t":"start","time":"` + at(601) + `","id":"L2","attempt":1}`,
		`{"t":"end","time":"` + at(602) + `","id":"L2","attempt":1,"result":2}`,
		`{"t":"final","time":"` + at(603) + `","status":"ok","result":3}`,
	}
	path := filepath.Join(dir, FileName)
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	s := Summarize(path)
	if got := s.Duration(); got != 5*time.Second {
		t.Errorf("Duration = %v, want 5s (2s, then 3s after the pause)", got)
	}
	if s.Calls != 2 || s.Status != StatusOK {
		t.Errorf("Calls %d, Status %s", s.Calls, s.Status)
	}
}
