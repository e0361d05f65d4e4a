package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/proselang/prose/journal"
)

// runRoutes registers the runs list and a run's page.
func (s *Server) runRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/{$}", s.runsPage)
	mux.HandleFunc("GET /ui/runs/{id}", s.runPage)
}

// runCache keeps the summaries of journals that did not change since
// they were read: a list page of 10,000 runs stats them, and reads only
// the journals that moved.
type runCache struct {
	mu   sync.Mutex
	sums map[string]cachedSummary
}

type cachedSummary struct {
	stamp stamp
	sum   *journal.Summary
}

// list returns every run under dir, newest first, as journal.List does.
func (c *runCache) list(dir string) ([]*journal.Summary, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sums == nil {
		c.sums = map[string]cachedSummary{}
	}
	seen := map[string]bool{}
	var out []*journal.Summary
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name(), journal.FileName)
		st, err := os.Stat(path)
		if err != nil {
			continue
		}
		seen[e.Name()] = true
		now := stamp{st.ModTime(), st.Size()}
		cs, ok := c.sums[e.Name()]
		// A running run's status moves without its journal moving (its
		// lock goes): it is read again each time.
		if !ok || cs.stamp != now || cs.sum.Status == journal.StatusRunning {
			cs = cachedSummary{now, journal.Summarize(path)}
			c.sums[e.Name()] = cs
		}
		out = append(out, cs.sum)
	}
	for id := range c.sums {
		if !seen[id] {
			delete(c.sums, id)
		}
	}
	journal.SortNewestFirst(out)
	return out, nil
}

// runsFilter is what the list is narrowed to: a status, and text the
// run's id or spec contains.
type runsFilter struct {
	Status, Text string
}

func (f runsFilter) keep(r *journal.Summary) bool {
	if f.Status != "" && r.Status != f.Status {
		return false
	}
	if f.Text != "" && !strings.Contains(strings.ToLower(r.ID+" "+r.Spec), strings.ToLower(f.Text)) {
		return false
	}
	return true
}

// runsData is the runs page's data.
type runsData struct {
	Runs     []*journal.Summary
	Filter   runsFilter
	Statuses []string
	Total    int // runs that pass the filter
	All      int // runs in the directory
	Page     int // 1-based
	Pages    int
	Prev     string // the URL of the previous page, "" on the first
	Next     string
	RunDir   string
	Problem  string
}

// statuses are the run statuses the filter offers.
var statuses = []string{journal.StatusOK, journal.StatusError, journal.StatusWaiting, journal.StatusRunning,
	journal.StatusIncomplete, journal.StatusInterrupted, journal.StatusDiverged, journal.StatusUnreadable}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := runsData{Filter: runsFilter{Status: q.Get("status"), Text: strings.TrimSpace(q.Get("q"))}, Statuses: statuses, RunDir: s.o.RunDir}
	runs, err := s.runs.list(s.o.RunDir)
	if err != nil {
		d.Problem = err.Error()
	}
	d.All = len(runs)
	var kept []*journal.Summary
	for _, run := range runs {
		if d.Filter.keep(run) {
			kept = append(kept, run)
		}
	}
	d.Total = len(kept)
	d.Pages = max(1, (d.Total+s.o.PageSize-1)/s.o.PageSize)
	d.Page = 1
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 1 {
		d.Page = min(p, d.Pages)
	}
	from := (d.Page - 1) * s.o.PageSize
	d.Runs = kept[from:min(from+s.o.PageSize, len(kept))]
	pageURL := func(p int) string {
		v := url.Values{}
		if d.Filter.Status != "" {
			v.Set("status", d.Filter.Status)
		}
		if d.Filter.Text != "" {
			v.Set("q", d.Filter.Text)
		}
		if p > 1 {
			v.Set("page", strconv.Itoa(p))
		}
		if len(v) == 0 {
			return "/ui/"
		}
		return "/ui/?" + v.Encode()
	}
	if d.Page > 1 {
		d.Prev = pageURL(d.Page - 1)
	}
	if d.Page < d.Pages {
		d.Next = pageURL(d.Page + 1)
	}
	s.render(w, http.StatusOK, "runs.tmpl", "runs", "runs", d)
}
