package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/journal"
)

// runRoutes registers the runs list and a run's page.
func (s *Server) runRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/{$}", s.runsPage)
	mux.HandleFunc("GET /ui/runs/{id}", s.runPage)
}

// runCache keeps the summaries of journals that did not change since
// they were read: a list page of 10,000 runs stats them, and reads only
// the journals that moved (several at once). A scan younger than the
// watcher's interval is used again, unless something was published on
// "runs" since (the watcher saw a journal move, the page answered or
// resumed a run): a page is never staler than the live updates.
type runCache struct {
	mu      sync.Mutex
	sums    map[string]cachedSummary
	last    []*journal.Summary
	scanned time.Time
	dirty   bool
}

type cachedSummary struct {
	stamp stamp
	sum   *journal.Summary
}

// invalidate makes the next list scan the directory again.
func (c *runCache) invalidate() {
	c.mu.Lock()
	c.dirty = true
	c.mu.Unlock()
}

// list returns every run under dir, newest first, as journal.List does;
// a scan within fresh of the last is used again.
func (c *runCache) list(dir string, fresh time.Duration) ([]*journal.Summary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty && c.last != nil && time.Since(c.scanned) < fresh {
		return c.last, nil
	}
	c.dirty = false
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		c.last, c.scanned = []*journal.Summary{}, time.Now()
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if c.sums == nil {
		c.sums = map[string]cachedSummary{}
	}
	seen := map[string]bool{}
	var out []*journal.Summary
	var stale []string
	stamps := map[string]stamp{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		st, err := os.Stat(filepath.Join(dir, e.Name(), journal.FileName))
		if err != nil {
			continue
		}
		seen[e.Name()] = true
		now := stamp{st.ModTime(), st.Size()}
		cs, ok := c.sums[e.Name()]
		// A running run's status moves without its journal moving (its
		// lock goes): it is read again each time.
		if !ok || cs.stamp != now || cs.sum.Status == journal.StatusRunning {
			stale = append(stale, e.Name())
			stamps[e.Name()] = now
			continue
		}
		out = append(out, cs.sum)
	}
	for i, sum := range summarizeAll(dir, stale) {
		c.sums[stale[i]] = cachedSummary{stamps[stale[i]], sum}
		out = append(out, sum)
	}
	for id := range c.sums {
		if !seen[id] {
			delete(c.sums, id)
		}
	}
	journal.SortNewestFirst(out)
	c.last, c.scanned = out, time.Now()
	return out, nil
}

// summarizeAll reads the journals of ids under dir, a few at once.
func summarizeAll(dir string, ids []string) []*journal.Summary {
	out := make([]*journal.Summary, len(ids))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(ids)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = journal.Summarize(filepath.Join(dir, ids[i], journal.FileName))
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
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
	runs, err := s.runs.list(s.o.RunDir, s.o.Poll)
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
	page, _ := strconv.Atoi(q.Get("page"))
	d.paginate(kept, s.o.PageSize, page)
	s.render(w, http.StatusOK, "runs.tmpl", "runs", "runs", d)
}

// paginate shows page (1-based; out of range: the nearest) of runs, size
// a page, with the links to the pages beside it.
func (d *runsData) paginate(runs []*journal.Summary, size, page int) {
	d.Total = len(runs)
	d.Pages = max(1, (d.Total+size-1)/size)
	d.Page = min(max(page, 1), d.Pages)
	from := (d.Page - 1) * size
	d.Runs = runs[from:min(from+size, len(runs))]
	if d.Page > 1 {
		d.Prev = d.pageURL(d.Page - 1)
	}
	if d.Page < d.Pages {
		d.Next = d.pageURL(d.Page + 1)
	}
}

// pageURL is the URL of page p of the list under the same filter.
func (d *runsData) pageURL(p int) string {
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
