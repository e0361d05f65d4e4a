package ui

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/journal"
)

// manyRuns is a run directory of n runs: copies of a finished, a failed
// and a waiting run, under ids of their own, started a second apart.
func manyRuns(b *testing.B, n int) (dir string, waiting []string) {
	b.Helper()
	r := newRunsB(b, "fine", "broken", "release")
	dir = filepath.Join(b.TempDir(), "runs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	names := []string{"fine", "broken", "release"}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		src := filepath.Join(r.runDir, r.ids[names[i%3]])
		id := fmt.Sprintf("%s-%06x", start.Add(time.Duration(i)*time.Second).Format("20060102T150405"), i)
		if err := os.CopyFS(filepath.Join(dir, id), os.DirFS(src)); err != nil {
			b.Fatal(err)
		}
		if names[i%3] == "release" {
			waiting = append(waiting, id)
		}
	}
	return dir, waiting
}

// BenchmarkUI10kRuns: the pages over 10,000 journaled runs (BENCHMARKS.md,
// prose ui).
func BenchmarkUI10kRuns(b *testing.B) {
	dir, waiting := manyRuns(b, 10000)
	// Poll is long: "list" measures a page from the cached scan,
	// "list-rescan" one that scans the directory again
	newServer := func() (*Server, *httptest.Server) {
		s, err := New(Options{RunDir: dir, Poll: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		b.Cleanup(func() { s.Close(); ts.Close() })
		return s, ts
	}
	fetch := func(b *testing.B, c *http.Client, u string) string {
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
		}
		return string(body)
	}
	b.Run("list-first-load", func(b *testing.B) {
		for b.Loop() {
			_, ts := newServer()
			fetch(b, ts.Client(), ts.URL+"/ui/")
		}
	})
	s, ts := newServer()
	c := ts.Client()
	if body := fetch(b, c, ts.URL+"/ui/"); !strings.Contains(body, "of 10000 runs") || !strings.Contains(body, "page 1 of 200") {
		b.Fatalf("the list of 10,000 runs does not say so, a page at a time")
	}
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			fetch(b, c, ts.URL+"/ui/")
		}
	})
	// each a scan of the directory: stat 10,000 journals, read none
	b.Run("list-rescan", func(b *testing.B) {
		for b.Loop() {
			s.runs.invalidate()
			fetch(b, c, ts.URL+"/ui/")
		}
	})
	b.Run("list-filtered-page-20", func(b *testing.B) {
		for b.Loop() {
			fetch(b, c, ts.URL+"/ui/?status=waiting&page=20")
		}
	})
	// what the watcher does every interval while a page is open
	b.Run("watch-scan", func(b *testing.B) {
		for b.Loop() {
			if len(s.scanRuns()) != 10000 {
				b.Fatal("the watcher does not see 10,000 runs")
			}
		}
	})
	b.Run("run-page", func(b *testing.B) {
		for b.Loop() {
			fetch(b, c, ts.URL+"/ui/runs/"+waiting[len(waiting)/2])
		}
	})
	s2, ts2 := newServer()
	c2 := ts2.Client()
	c2.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	id := waiting[0]
	gs, err := journal.Waiting(dir, id)
	if err != nil || len(gs) != 1 {
		b.Fatal(gs, err)
	}
	b.Run("answer", func(b *testing.B) {
		for b.Loop() {
			resp, err := c2.PostForm(ts2.URL+"/ui/runs/"+id+"/answer", url.Values{"csrf": {s2.csrf}, "gate": {gs[0].Path.Key()}, "value": {"v1"}, "replace": {"1"}})
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				b.Fatalf("answer: %d", resp.StatusCode)
			}
		}
	})
}
