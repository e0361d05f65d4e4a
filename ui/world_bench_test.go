package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// benchWorld writes a world of n nodes (a gateway n0000 and n-1
// responsibilities, node k reading node (k-1)/2: about log2 n columns),
// as the drain benchmarks of world/reconcile do.
func benchWorld(b *testing.B, n int) (*graph.Graph, string) {
	b.Helper()
	dir := b.TempDir()
	for k := 0; k < n; k++ {
		id := fmt.Sprintf("n%04d", k)
		kind, req := "responsibility", fmt.Sprintf("- `n%04d`: the parent's truth", (k-1)/2)
		if k == 0 {
			kind, req = "gateway", ""
		}
		if err := os.WriteFile(filepath.Join(dir, id+".prose.md"), []byte(worldContract(id, kind, req, "- `v`: a value")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		b.Fatal(err, diags)
	}
	return g, dir
}

// valueRenderer renders every node to {"v": the drain's event}.
type valueRenderer struct{}

func (valueRenderer) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if len(req.Events) > 0 {
		return &reconcile.Answer{Truth: map[string]any{"v": req.Events[0]}, Cost: receipt.Cost{Requests: 1, TokensIn: 100, TokensOut: 20}}, nil
	}
	for _, v := range req.Inputs {
		return &reconcile.Answer{Truth: map[string]any{"v": v}, Cost: receipt.Cost{Requests: 1, TokensIn: 100, TokensOut: 20}}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"v": nil}}, nil
}

func benchDrain(b *testing.B, g *graph.Graph, state string, event any, committed func(*receipt.Receipt)) {
	b.Helper()
	st, err := store.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st, MaxParallel: 2,
		Events: map[string][]any{"n0000": {event}}, Committed: committed,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return valueRenderer{}, nil }})
	if err != nil {
		b.Fatal(err)
	}
	if res.Rendered != len(g.Nodes) {
		b.Fatalf("rendered %d of %d", res.Rendered, len(g.Nodes))
	}
}

// BenchmarkWorldPages1000: the world pages of a 1,000-node world drained
// twice, each answered through the handler (the page's Poll of the store
// included).
func BenchmarkWorldPages1000(b *testing.B) {
	g, dir := benchWorld(b, 1000)
	state := filepath.Join(dir, ".prose", "world")
	benchDrain(b, g, state, 1, nil)
	benchDrain(b, g, state, 2, nil)
	s, err := New(Options{RunDir: filepath.Join(dir, ".prose", "runs"), StateDir: state, Graph: g})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	get := func(b *testing.B, path string) int {
		req := httptest.NewRequest("GET", "http://127.0.0.1"+path, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.Len()
	}
	get(b, "/ui/world") // loads the World: every ledger read and verified once
	for _, p := range []struct{ name, path string }{
		{"graph", "/ui/world"},
		{"status", "/ui/world/status?since=0"},
		{"node", "/ui/world/node/n0999"},
		{"drain", "/ui/world/drain/2"},
		{"drain-step", "/ui/world/drain/2?step=500"},
	} {
		b.Run(p.name, func(b *testing.B) {
			n := 0
			for i := 0; i < b.N; i++ {
				n = get(b, p.path)
			}
			b.ReportMetric(float64(n)/1024, "KB/page")
		})
	}
}

// BenchmarkWorldDrainStream1000: a 1,000-node drain (cold start) while a
// page follows it as world.js does: the event stream's "world" events,
// each answered by /ui/world/status?since=V. It reports how far behind
// the page was (receipts committed and not yet shown, at each answer),
// and how long after the drain's last commit the page showed every node
// rendered; it fails if the page never does.
func BenchmarkWorldDrainStream1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		g, dir := benchWorld(b, 1000)
		state := filepath.Join(dir, ".prose", "world")
		s, err := New(Options{RunDir: filepath.Join(dir, ".prose", "runs"), StateDir: state, Graph: g})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		var committed atomic.Int64
		f := &follower{url: ts.URL, committed: &committed, shown: map[string]string{}}
		ctx, cancel := context.WithCancel(context.Background())
		open := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.follow(ctx, open)
		}()
		<-open
		start := time.Now()
		benchDrain(b, g, state, 1, func(*receipt.Receipt) { committed.Add(1) })
		end := time.Now()
		caught := f.waitAll(len(g.Nodes), 60*time.Second)
		cancel()
		ts.CloseClientConnections()
		ts.Close()
		s.Close()
		wg.Wait()
		if caught.IsZero() {
			b.Fatalf("the page shows %d of %d nodes rendered a minute after the drain: it fell behind", f.rendered(), len(g.Nodes))
		}
		b.ReportMetric(float64(end.Sub(start).Milliseconds()), "drain-ms")
		b.ReportMetric(float64(caught.Sub(end).Milliseconds()), "catch-up-ms")
		b.ReportMetric(float64(f.answers), "answers")
		b.ReportMetric(float64(f.maxBehind), "max-behind-receipts")
		b.ReportMetric(float64(f.maxAnswer.Milliseconds()), "max-answer-ms")
	}
}

// follower is a page following the world page's live updates.
type follower struct {
	url       string
	committed *atomic.Int64
	mu        sync.Mutex
	version   int
	shown     map[string]string
	answers   int
	maxBehind int64
	maxAnswer time.Duration
}

// follow reads the event stream, asking for what moved at each world
// event, until ctx ends; open is closed once the stream is open.
func (f *follower) follow(ctx context.Context, open chan struct{}) {
	req, _ := http.NewRequestWithContext(ctx, "GET", f.url+"/ui/events?topic=world", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		close(open)
		return
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			close(open)
			f.ask(ctx) // what moved before the stream opened
		}
		if strings.HasPrefix(line, "event: world") {
			f.ask(ctx)
		}
	}
}

func (f *follower) ask(ctx context.Context) {
	f.mu.Lock()
	v := f.version
	f.mu.Unlock()
	t0 := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/ui/world/status?since=%d", f.url, v), nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var c struct {
		Version int
		Nodes   []struct{ ID, Status string }
	}
	if json.Unmarshal(body, &c) != nil {
		return
	}
	d := time.Since(t0)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers++
	f.maxAnswer = max(f.maxAnswer, d)
	f.version = c.Version
	for _, n := range c.Nodes {
		f.shown[n.ID] = n.Status
	}
	shown := int64(0)
	for _, s := range f.shown {
		if s == "rendered" {
			shown++
		}
	}
	f.maxBehind = max(f.maxBehind, f.committed.Load()-shown)
}

func (f *follower) rendered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.shown {
		if s == "rendered" {
			n++
		}
	}
	return n
}

// waitAll waits until the page shows n nodes rendered: the time it did,
// zero when it did not within limit.
func (f *follower) waitAll(n int, limit time.Duration) time.Time {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if f.rendered() == n {
			return time.Now()
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Time{}
}
