package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// served is a prose serve process over basic-unit-suite, every node
// bound to the offline renderer testdata/world/bus.
type served struct {
	t                 *testing.T
	prose, bus, state string
	project           string
	cmd               *exec.Cmd
	url               string
	exited            chan error
	// mu guards lines, what every prose serve this started wrote to
	// stderr.
	mu    sync.Mutex
	lines []string
}

func newServed(t *testing.T) *served {
	if testing.Short() {
		t.Skip("builds prose and serves over HTTP")
	}
	project := testenv.Corpus015(t, "examples/basic-unit-suite")
	dir := t.TempDir()
	bus := filepath.Join(dir, "bus")
	if out, err := exec.Command("go", "build", "-o", bus, filepath.Join(testenv.MustRoot(t), "testdata", "world", "bus")).CombinedOutput(); err != nil {
		t.Fatalf("building bus: %v\n%s", err, out)
	}
	return &served{t: t, prose: buildProse(t, dir), bus: bus, project: project, state: filepath.Join(dir, "state")}
}

var listenRE = regexp.MustCompile(`listening on (http://\S+)`)

// start runs prose serve on a free loopback port and waits until it
// listens.
func (s *served) start(extra ...string) {
	s.t.Helper()
	args := append([]string{"serve", s.project, "--state", s.state, "--slot", "*=exec:" + s.bus, "--http", "127.0.0.1:0"}, extra...)
	s.cmd = exec.Command(s.prose, args...)
	stderr, _ := s.cmd.StderrPipe()
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.exited = make(chan error, 1)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		s.exited <- s.cmd.Wait()
	}()
	select {
	case s.url = <-found:
	case err := <-s.exited:
		s.t.Fatalf("prose serve exited before listening: %v", err)
	case <-time.After(time.Minute):
		s.t.Fatal("prose serve did not listen within a minute")
	}
}

func (s *served) do(method, path, token string, body []byte) (int, []byte) {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type ack struct {
	Drain     int
	Duplicate bool
}

func (s *served) post(event string) (int, ack) {
	s.t.Helper()
	code, b := s.do("POST", "/trigger/counter-events", "", []byte(event))
	var a ack
	if code >= 500 {
		s.t.Logf("POST /trigger/counter-events %s: %d %s", event, code, b)
	}
	if code == http.StatusAccepted {
		if err := json.Unmarshal(b, &a); err != nil || a.Drain == 0 {
			s.t.Fatalf("202 without a drain id: %s", b)
		}
	}
	return code, a
}

// outcome waits for drain id to be done.
func (s *served) outcome(id int) *serve.Outcome {
	s.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		code, b := s.do("GET", fmt.Sprintf("/drains/%d", id), "", nil)
		var st struct {
			State   string
			Outcome *serve.Outcome
		}
		if code == 200 && json.Unmarshal(b, &st) == nil && st.State == "done" {
			return st.Outcome
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("drain %d not done within two minutes", id)
	return nil
}

func (s *served) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-s.exited; err != nil {
		s.t.Errorf("prose serve after SIGTERM: %v (want exit 0)", err)
	}
}

func fingerprint(t *testing.T, js string) string {
	v, err := canon.Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := canon.Fingerprint(v, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func gatewayReceipts(t *testing.T, state string) []*receipt.Receipt {
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := st.Ledger("counter-events")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// 100 events over HTTP, 20 of them duplicates and 10 malformed: each
// distinct event is folded into exactly one rendered gateway receipt,
// each duplicate (alone in its drain) leaves a skipped one, and each
// malformed event is a 400 that queues and commits nothing.
func TestServeEvents(t *testing.T) {
	s := newServed(t)
	s.start()
	defer s.stop()
	serveEvents(t, s)
}

// serveEvents posts the events of TestServeEvents to s and checks its
// ledger.
func serveEvents(t *testing.T, s *served) {
	type item struct {
		body string
		kind string // "new", "dup", "bad"
	}
	var items []item
	rng := rand.New(rand.NewSource(20))
	var distinct []string
	for i := 0; i < 70; i++ {
		e := fmt.Sprintf(`{"id":"e%d","kind":"%s","value":%d}`, i, []string{"click", "view"}[i%2], 1+i%3)
		distinct = append(distinct, e)
		items = append(items, item{e, "new"})
	}
	for i := 0; i < 20; i++ {
		// A duplicate comes after its original.
		j := 10 + rng.Intn(60)
		k := 0
		for n, it := range items {
			if it.body == distinct[j] {
				k = n
			}
		}
		at := k + 1 + rng.Intn(len(items)-k)
		items = append(items[:at], append([]item{{distinct[j], "dup"}}, items[at:]...)...)
	}
	for i := 0; i < 10; i++ {
		bad := []string{`{"id":"x`, `not json`, `{"id":1,}`, `[1,2`, `{"a":}`}[i%5]
		at := rng.Intn(len(items))
		items = append(items[:at], append([]item{{bad, "bad"}}, items[at:]...)...)
	}

	var pending []int
	drainOf := map[string]int{}
	var dupDrains []int
	for _, it := range items {
		if it.kind == "dup" {
			// Alone in its drain: wait for everything before it first.
			for _, d := range pending {
				s.outcome(d)
			}
		}
		code, a := s.post(it.body)
		switch it.kind {
		case "bad":
			if code != http.StatusBadRequest {
				t.Errorf("malformed %q: %d, want 400", it.body, code)
			}
			continue
		case "dup":
			if code != http.StatusAccepted || !a.Duplicate {
				t.Errorf("duplicate %s: %d %+v, want 202 and duplicate", it.body, code, a)
			}
			dupDrains = append(dupDrains, a.Drain)
			s.outcome(a.Drain)
		default:
			if code != http.StatusAccepted || a.Duplicate {
				t.Errorf("event %s: %d %+v, want 202, not a duplicate", it.body, code, a)
			}
			drainOf[it.body] = a.Drain
		}
		pending = append(pending, a.Drain)
	}
	outcomes := map[int]*serve.Outcome{}
	for _, d := range pending {
		outcomes[d] = s.outcome(d)
	}

	rs := gatewayReceipts(t, s.state)
	byHash := map[string]*receipt.Receipt{}
	renderedBy := map[string]int{} // events fingerprint -> rendered receipts
	for _, r := range rs {
		byHash[r.Hash] = r
		if r.Status == receipt.Rendered {
			renderedBy[r.Events]++
		}
	}
	// Each distinct event: one drain holds it, undup'd; that drain's
	// events are in exactly one rendered gateway receipt.
	seen := map[string]int{}
	triggers := 0
	for _, o := range outcomes {
		for _, tr := range o.Triggers {
			triggers++
			if !tr.Dup {
				seen[tr.FP]++
			}
		}
	}
	if triggers != 90 {
		t.Errorf("drains answered %d triggers, want 90 (70 events and 20 duplicates; no malformed one)", triggers)
	}
	for _, e := range distinct {
		if n := seen[fingerprint(t, e)]; n != 1 {
			t.Errorf("%s delivered in %d drains, want 1", e, n)
		}
		o := outcomes[drainOf[e]]
		if n := renderedBy[o.Events["counter-events"]]; n != 1 {
			t.Errorf("%s: drain %d's events in %d rendered gateway receipts, want 1", e, o.Drain, n)
		}
	}
	for _, d := range dupDrains {
		o := outcomes[d]
		var gw []receipt.Status
		for _, ref := range o.Receipts {
			if ref.Node == "counter-events" {
				gw = append(gw, ref.Status)
				if r := byHash[ref.Hash]; r == nil || r.Status != receipt.Skipped {
					t.Errorf("drain %d: gateway receipt %s not a skip in the ledger", d, ref.Hash)
				}
			}
		}
		if len(gw) != 1 || gw[0] != receipt.Skipped {
			t.Errorf("duplicate's drain %d: gateway receipts %v, want one skipped", d, gw)
		}
	}
	var gwRendered int
	for _, r := range rs {
		if r.Status == receipt.Rendered {
			gwRendered++
		}
	}
	if len(renderedBy) != gwRendered || len(rs) != gwRendered+len(dupDrains) {
		t.Errorf("gateway ledger: %d receipts, %d rendered; want the rendered ones (one per drain of new events) and %d skips, nothing else", len(rs), gwRendered, len(dupDrains))
	}
	// The published ledger holds the 70 ids, each once.
	code, b := s.do("GET", "/nodes/counter-events?facet=raw_events", "", nil)
	var raw struct {
		AcceptedEventIDs []string `json:"accepted_event_ids"`
	}
	if code != 200 || json.Unmarshal(b, &raw) != nil || len(raw.AcceptedEventIDs) != 70 {
		t.Errorf("GET /nodes/counter-events?facet=raw_events: %d %s", code, b)
	}
	if out, err := exec.Command(s.prose, "receipts", "verify", "--state", s.state).CombinedOutput(); err != nil {
		t.Errorf("prose receipts verify: %v\n%s", err, out)
	}
	s.checkDrainLog(outcomes)
}

var drainLineRE = regexp.MustCompile(`msg=drain drain=(\d+) .*rendered=(\d+) skipped=(\d+) failed=(\d+)`)

// checkDrainLog waits for serve's log to hold one line for each drain
// of outcomes, with its counts, and checks /metrics counts them.
func (s *served) checkDrainLog(outcomes map[int]*serve.Outcome) {
	s.t.Helper()
	logged := map[int]int{}
	var counts map[int]string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		s.mu.Lock()
		clear(logged)
		counts = map[int]string{}
		for _, l := range s.lines {
			if m := drainLineRE.FindStringSubmatch(l); m != nil {
				var d int
				fmt.Sscan(m[1], &d)
				logged[d]++
				counts[d] = m[2] + "/" + m[3] + "/" + m[4]
			}
		}
		s.mu.Unlock()
		all := true
		for d := range outcomes {
			all = all && logged[d] > 0
		}
		if all || time.Now().After(deadline) {
			break
		}
	}
	for d, o := range outcomes {
		if want := fmt.Sprintf("%d/%d/%d", o.Rendered, o.Skipped, o.Failed); logged[d] != 1 || counts[d] != want {
			s.t.Errorf("drain %d: %d log lines, rendered/skipped/failed %q; want one line, %s", d, logged[d], counts[d], want)
		}
	}
	code, b := s.do("GET", "/metrics", "", nil)
	m := regexp.MustCompile(`(?m)^prose_serve_drains_total (\d+)$`).FindSubmatch(b)
	n := -1
	if m != nil {
		fmt.Sscan(string(m[1]), &n)
	}
	if code != 200 || n < len(outcomes) {
		s.t.Errorf("GET /metrics: %d, prose_serve_drains_total %d; want at least the %d drains answered:\n%s", code, n, len(outcomes), b)
	}
}

// A non-loopback address without --token-file: exit 2 before binding.
func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	s := newServed(t)
	var stderr bytes.Buffer
	c := exec.Command(s.prose, "serve", s.project, "--state", s.state, "--slot", "*=exec:"+s.bus, "--http", "0.0.0.0:0")
	c.Stderr = &stderr
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--token-file") || strings.Contains(stderr.String(), "listening") {
		t.Errorf("stderr does not name --token-file, or it listened:\n%s", stderr.String())
	}
}

// With a token file, every endpoint but /health answers 401 without the
// bearer token (and with a wrong one); with it, a trigger is a 202. The
// process listens on 127.0.0.2: a loopback address that stands for a
// non-loopback one, the only difference being the check at start, which
// TestServeRefusesNonLoopbackWithoutToken covers.
func TestServeToken(t *testing.T) {
	s := newServed(t)
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("s3cret-token\n"), 0o600)
	s.start("--token-file", tok)
	defer s.stop()
	paths := []struct{ method, path string }{
		{"GET", "/status"}, {"GET", "/nodes/counter-events"}, {"GET", "/receipts"}, {"GET", "/graph"},
		{"POST", "/trigger/counter-events"}, {"GET", "/drains/1"}, {"GET", "/metrics"},
	}
	for _, p := range paths {
		for _, bad := range []string{"", "wrong"} {
			if code, _ := s.do(p.method, p.path, bad, []byte(`{"id":"a"}`)); code != http.StatusUnauthorized {
				t.Errorf("%s %s with token %q: %d, want 401", p.method, p.path, bad, code)
			}
		}
	}
	if code, _ := s.do("GET", "/health", "", nil); code != 200 {
		t.Errorf("/health without a token: %d, want 200", code)
	}
	code, b := s.do("POST", "/trigger/counter-events", "s3cret-token", []byte(`{"id":"a","kind":"click","value":1}`))
	if code != http.StatusAccepted {
		t.Fatalf("trigger with the token: %d %s", code, b)
	}
	if code, b := s.do("GET", "/status", "s3cret-token", nil); code != 200 || bytes.Contains(b, []byte("s3cret")) {
		t.Errorf("/status with the token: %d", code)
	}
}

// kill -9 of prose serve while events arrive, then a restart: every event
// answered 202 is delivered in exactly one drain, folded into exactly one
// rendered gateway receipt, and the receipts verify.
func TestServeKill(t *testing.T) {
	serveKill(t, newServed(t), 300*time.Millisecond)
}

// serveKill starts s with args, kills it after wait while events
// arrive, starts it again and checks what was acknowledged.
func serveKill(t *testing.T, s *served, wait time.Duration, args ...string) {
	s.start(args...)
	acked := map[string]int{}
	var order []string
	stop := make(chan struct{})
	// The kill comes after wait and after two events were answered
	// (whichever is later), so that a loaded machine cannot leave the
	// test without events to check; the minute only guards a hang.
	two := make(chan struct{})
	go func() {
		time.Sleep(wait)
		select {
		case <-two:
		case <-time.After(time.Minute):
		}
		s.cmd.Process.Signal(syscall.SIGKILL)
		close(stop)
	}()
	for i := 0; ; i++ {
		e := fmt.Sprintf(`{"id":"k%d","kind":"click","value":1}`, i)
		req, _ := http.NewRequest("POST", s.url+"/trigger/counter-events", strings.NewReader(e))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			break // killed
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var a ack
		if resp.StatusCode == http.StatusAccepted && json.Unmarshal(b, &a) == nil {
			acked[e] = a.Drain
			order = append(order, e)
			if len(order) == 2 {
				close(two)
			}
		}
	}
	<-stop
	<-s.exited
	if len(acked) < 2 {
		t.Fatalf("only %d events acknowledged before the kill", len(acked))
	}
	s.start(args...)
	defer s.stop()
	outcomes := map[int]*serve.Outcome{}
	for _, e := range order {
		if outcomes[acked[e]] == nil {
			outcomes[acked[e]] = s.outcome(acked[e])
		}
	}
	// A drain that committed before the kill and ran again after it
	// found its gateway's key unmoved: still one rendered receipt.
	deliveredOnce(t, s.state, outcomes, order, func(e string) int { return acked[e] })
	// Published: every acknowledged id (an event whose line reached the
	// disk but whose 202 the kill cut off may be there too).
	code, b := s.do("GET", "/nodes/counter-events?facet=raw_events", "", nil)
	var raw struct {
		AcceptedEventIDs []string `json:"accepted_event_ids"`
	}
	if code != 200 || json.Unmarshal(b, &raw) != nil {
		t.Fatalf("GET /nodes/counter-events: %d %s", code, b)
	}
	ids := map[string]bool{}
	for _, id := range raw.AcceptedEventIDs {
		ids[id] = true
	}
	for _, e := range order {
		var ev struct{ ID string }
		json.Unmarshal([]byte(e), &ev)
		if !ids[ev.ID] {
			t.Errorf("acknowledged %s not published", ev.ID)
		}
	}
	if out, err := exec.Command(s.prose, "receipts", "verify", "--state", s.state).CombinedOutput(); err != nil {
		t.Errorf("prose receipts verify: %v\n%s", err, out)
	}
	t.Logf("%d events acknowledged before the kill, in %d drains", len(order), len(outcomes))
}

// One log line per drain; --log-format json makes it a JSON object with
// the drain's triggers and counts.
func TestDrainLog(t *testing.T) {
	var buf bytes.Buffer
	log := newDrainLog(streams{err: &buf}, "json")
	log(&serve.Outcome{Drain: 3, Triggers: []serve.Trigger{{Node: "gw"}, {Node: "gw", Dup: true}, {Node: "r", Self: true}}, Rendered: 2, Skipped: 1, Tokens: 40, MS: 7})
	log(&serve.Outcome{Drain: 4, Error: "disk full"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	var l struct {
		Level                              string
		Drain                              int
		Triggers                           string
		Duplicates, Self, Rendered, Tokens int
		Error                              string
	}
	if err := json.Unmarshal([]byte(lines[0]), &l); err != nil {
		t.Fatal(err)
	}
	if l.Drain != 3 || l.Triggers != "gw:2,r:1" || l.Duplicates != 1 || l.Self != 1 || l.Rendered != 2 || l.Tokens != 40 {
		t.Errorf("line %s", lines[0])
	}
	json.Unmarshal([]byte(lines[1]), &l)
	if l.Level != "ERROR" || l.Error != "disk full" {
		t.Errorf("failed drain's line %s", lines[1])
	}
}

// deliveredOnce checks that each event of events is in exactly one drain
// of outcomes, and that the events of its drain (drainOf) are in exactly
// one rendered receipt of the gateway counter-events in the state dir.
func deliveredOnce(t *testing.T, state string, outcomes map[int]*serve.Outcome, events []string, drainOf func(event string) int) {
	t.Helper()
	seen := map[string]int{}
	for _, o := range outcomes {
		for _, tr := range o.Triggers {
			seen[tr.FP]++
		}
	}
	renderedBy := map[string]int{}
	for _, r := range gatewayReceipts(t, state) {
		if r.Status == receipt.Rendered {
			renderedBy[r.Events]++
		}
	}
	for _, e := range events {
		if n := seen[fingerprint(t, e)]; n != 1 {
			t.Errorf("%s in %d drains, want 1", e, n)
		}
		o := outcomes[drainOf(e)]
		if o == nil {
			t.Errorf("%s: no outcome of its drain %d", e, drainOf(e))
			continue
		}
		if n := renderedBy[o.Events["counter-events"]]; n != 1 {
			t.Errorf("%s: its drain's events in %d rendered gateway receipts, want 1", e, n)
		}
	}
}
