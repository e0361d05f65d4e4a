package connect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/serve/connect"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// ids folds events' "id" (or "seq") into the feed's truth.
type ids struct{}

func (ids) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if req.Node.ID == "tally" {
		seen, _ := req.Inputs["seen"].([]any)
		return &reconcile.Answer{Truth: map[string]any{"count": len(seen)}}, nil
	}
	set := map[string]bool{}
	if p, ok := req.Prior.(map[string]any); ok {
		for _, id := range p["seen"].([]any) {
			set[id.(string)] = true
		}
	}
	for _, e := range req.Events {
		m := e.(map[string]any)
		id := m["id"]
		if id == nil {
			id = m["seq"]
		}
		set[fmt.Sprint(id)] = true
	}
	var seen []any
	for id := range set {
		seen = append(seen, id)
	}
	sort.Slice(seen, func(i, j int) bool { return seen[i].(string) < seen[j].(string) })
	return &reconcile.Answer{Truth: map[string]any{"seen": seen}}, nil
}

type world struct {
	t   *testing.T
	g   *graph.Graph
	st  *store.Store
	s   *serve.Server
	out []*serve.Outcome
}

func newWorld(t *testing.T) *world {
	g, diags, err := graph.Load("../testdata/redeliver")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, g: g, st: st}
	w.s, err = serve.New(serve.Options{Graph: g, Store: st, Now: func() time.Time { return time.Unix(0, 0) },
		Drain:   drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return ids{}, nil }, nil),
		Drained: func(o *serve.Outcome) { w.out = append(w.out, o) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.s.Close() })
	return w
}

func (w *world) connector(c *connect.Config) *connect.Connector {
	k, err := connect.New(c, w.s, w.t.TempDir())
	if err != nil {
		w.t.Fatal(err)
	}
	return k
}

// poll polls once, drains, and returns the drain's feed receipt status.
func (w *world) poll(k *connect.Connector, events, dups int) receipt.Status {
	w.t.Helper()
	e, d, err := k.Poll(context.Background())
	if err != nil || e != events || d != dups {
		w.t.Fatalf("poll: %d events, %d duplicates, %v; want %d, %d", e, d, err, events, dups)
	}
	n := len(w.out)
	if err := w.s.DrainQueued(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	if len(w.out) == n {
		return ""
	}
	for _, r := range w.out[len(w.out)-1].Receipts {
		if r.Node == "feed" {
			return r.Status
		}
	}
	return "none"
}

func (w *world) seen() string {
	v, ok, err := w.st.Published("feed")
	if err != nil || !ok {
		return fmt.Sprint(err)
	}
	return fmt.Sprint(v.(map[string]any)["seen"])
}

// A directory connector: each new file is one event or an array of
// them; a file is read once, across a restart of the connector; an id
// delivered before ends as a skipped gateway.
func TestFileConnector(t *testing.T) {
	w := newWorld(t)
	inbox := t.TempDir()
	c := &connect.Config{Gateway: "feed", Kind: "file", Target: inbox, IDField: "id", Every: time.Second}
	k := w.connector(c)
	os.WriteFile(filepath.Join(inbox, "1.json"), []byte(`[{"id":"a"},{"id":"b"}]`), 0o644)
	if st := w.poll(k, 2, 0); st != receipt.Rendered || w.seen() != "[a b]" {
		t.Fatalf("first file: %s %s", st, w.seen())
	}
	os.WriteFile(filepath.Join(inbox, "2.json"), []byte(`{"id":"a","note":"sent again"}`), 0o644)
	if st := w.poll(k, 0, 1); st != receipt.Skipped {
		t.Errorf("a re-delivered id: feed %s, want skipped", st)
	}
	k = w.connector(c) // the cursor is durable
	if st := w.poll(k, 0, 0); st != "" {
		t.Errorf("files read again after a restart: %s", st)
	}
	os.WriteFile(filepath.Join(inbox, "3.json"), []byte(`{"id":"c"}`), 0o644)
	if st := w.poll(k, 1, 0); st != receipt.Rendered || w.seen() != "[a b c]" {
		t.Errorf("third file: %s %s", st, w.seen())
	}
	os.WriteFile(filepath.Join(inbox, "4.json"), []byte(`{"id":`), 0o644)
	if _, _, err := k.Poll(context.Background()); err == nil || !strings.Contains(err.Error(), "4.json: not a JSON event") {
		t.Errorf("a broken file: %v", err)
	}
	// Counts are since the connector started; the cursor is durable.
	if st := w.s.Connectors()["feed"]; st.Error == "" || st.Events != 1 || st.Duplicates != 0 || st.Cursor != "c" {
		t.Errorf("status: %+v", st)
	}
}

// An exec connector prints JSON lines; {cursor} is the last id.
func TestExecConnector(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "count.sh"), []byte("#!/bin/sh\nn=$1\necho \"{\\\"seq\\\": \\\"$((${n:-0} + 1))\\\"}\"\necho \"{\\\"seq\\\": \\\"$((${n:-0} + 2))\\\"}\"\n"), 0o755)
	k, err := connect.New(&connect.Config{Gateway: "feed", Kind: "exec", IDField: "seq", Every: time.Second, Target: "./count.sh {cursor}"}, w.s, dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := w.poll(k, 2, 0); st != receipt.Rendered || w.seen() != "[1 2]" {
		t.Fatalf("first: %s %s", st, w.seen())
	}
	// From cursor 2 the program prints 3 and 4.
	if st := w.poll(k, 2, 0); st != receipt.Rendered || w.seen() != "[1 2 3 4]" {
		t.Errorf("second: %s %s", st, w.seen())
	}
}

// hostile ids: what a shell would run, were a cursor put in a shell line.
var hostile = []string{`x$(touch INJECTED)`, "y`touch INJECTED`", `z'"; touch INJECTED; echo "'`, `w" $(touch INJECTED) "`}

// Event ids that hold $(...), backquotes and quotes reach the program
// intact, as an argument or in PROSE_CURSOR, for every form of the
// command: nothing is run by a shell.
func TestExecConnectorPassesDataAsData(t *testing.T) {
	for _, form := range []struct {
		command string
		arg     func(args []string) string // the cursor as the program received it
	}{
		{"./poll.sh {cursor}", func(a []string) string { return a[0] }},
		{"./poll.sh --after={cursor}", func(a []string) string { return strings.TrimPrefix(a[0], "--after=") }},
		{`./poll.sh "a literal" {cursor}`, func(a []string) string { return a[1] }},
		{"./poll.sh", func(a []string) string { return a[len(a)-1] }}, // PROSE_CURSOR
	} {
		t.Run(form.command, func(t *testing.T) {
			w := newWorld(t)
			dir := t.TempDir()
			// poll.sh logs its arguments and PROSE_CURSOR, one a line, then
			// prints the events of feed.jsonl.
			os.WriteFile(filepath.Join(dir, "poll.sh"), []byte("#!/bin/sh\nfor a in \"$@\" \"$PROSE_CURSOR\"; do printf '%s\\n' \"$a\" >> args.log; done\necho --- >> args.log\ncat feed.jsonl\n"), 0o755)
			k, err := connect.New(&connect.Config{Gateway: "feed", Kind: "exec", IDField: "id", Every: time.Second, Target: form.command}, w.s, dir)
			if err != nil {
				t.Fatal(err)
			}
			prev := ""
			for _, id := range hostile {
				ev, _ := json.Marshal(map[string]string{"id": id})
				os.WriteFile(filepath.Join(dir, "feed.jsonl"), append(ev, '\n'), 0o644)
				w.poll(k, 1, 0)
				calls := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(dir, "args.log")), "---\n"), "---\n")
				last := strings.Split(strings.TrimSuffix(calls[len(calls)-1], "\n"), "\n")
				if got := form.arg(last); got != prev {
					t.Errorf("the program got the cursor %q, want %q", got, prev)
				}
				prev = id
			}
			if _, err := os.Stat(filepath.Join(dir, "INJECTED")); err == nil {
				t.Error("an event id was run as a command")
			}
			if got := w.seen(); got != fmt.Sprint(sorted(hostile)) {
				t.Errorf("delivered ids %s, want %s", got, sorted(hostile))
			}
		})
	}
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A command that quotes the placeholder, another placeholder, or shell
// syntax is refused before anything runs.
func TestParseExecRefuses(t *testing.T) {
	for cmd, want := range map[string]string{
		`./poll.sh "{cursor}"`:          "is quoted",
		`./poll.sh '{cursor}'`:          "is quoted",
		`./poll.sh "--after={cursor}"`:  "is quoted",
		`sh -c "echo {cursor}"`:         "is quoted",
		`./poll.sh {cursor} | jq .`:     "shell syntax",
		`./poll.sh $(cat x)`:            "shell syntax",
		"./poll.sh `x`":                 "shell syntax",
		`./poll.sh {last}`:              "unknown placeholder {last}",
		`{cursor}`:                      "program's own name",
		`./poll.sh "unclosed`:           "not closed",
		``:                              "no program",
		`./poll.sh > out`:               "shell syntax",
		`./poll.sh {cursor}; rm -rf x`:  "shell syntax",
		`./poll.sh && ./other {cursor}`: "shell syntax",
	} {
		if _, err := connect.ParseExec(cmd); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseExec(%q) = %v, want %q", cmd, err, want)
		}
	}
	got, err := connect.ParseExec(`./poll.sh --from {cursor} 'a b' "c \"d\"" '{x}'`)
	if err != nil || fmt.Sprintf("%q", got) != `["./poll.sh" "--from" "{cursor}" "a b" "c \"d\"" "{x}"]` {
		t.Errorf("ParseExec: %q %v", got, err)
	}
}

// A drop directory reads only regular files within the event bound: a
// link to a device, a named pipe and a file too long are named and left,
// and the good files beside them are delivered.
func TestFileConnectorReadsOnlyRegularFiles(t *testing.T) {
	w := newWorld(t)
	inbox := t.TempDir()
	os.Symlink("/dev/zero", filepath.Join(inbox, "0-zero.json"))
	fifo := filepath.Join(inbox, "1-pipe.json")
	pipes := mkfifo(fifo) == nil
	os.WriteFile(filepath.Join(inbox, "2-big.json"), []byte(`{"id":"`+strings.Repeat("b", 200)+`"}`), 0o644)
	os.WriteFile(filepath.Join(inbox, "3-good.json"), []byte(`{"id":"g"}`), 0o644)
	k := w.connector(&connect.Config{Gateway: "feed", Kind: "file", Target: inbox, IDField: "id", Every: time.Second, MaxEventBytes: 100})
	events, _, err := k.Poll(context.Background())
	if events != 1 || err == nil {
		t.Fatalf("poll: %d events, %v", events, err)
	}
	for _, want := range []string{"0-zero.json: a device", "2-big.json: longer than 100 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if pipes && !strings.Contains(err.Error(), "1-pipe.json: a named pipe") {
		t.Errorf("the error does not name the pipe: %v", err)
	}
}

// An http connector polls a URL with the cursor, and a failing source
// backs off with its error on the status.
func TestHTTPConnector(t *testing.T) {
	w := newWorld(t)
	var mu sync.Mutex
	var afters []string
	down := false
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			http.Error(rw, "upstream is down", http.StatusServiceUnavailable)
			return
		}
		afters = append(afters, r.URL.Query().Get("after"))
		fmt.Fprint(rw, `[{"id":"p1"},{"id":"p2"}]`)
	}))
	defer srv.Close()
	k := w.connector(&connect.Config{Gateway: "feed", Kind: "http", Target: srv.URL + "/events?after={cursor}", IDField: "id", Every: time.Second})
	if st := w.poll(k, 2, 0); st != receipt.Rendered {
		t.Fatalf("first: %s", st)
	}
	if st := w.poll(k, 0, 2); st != receipt.Skipped {
		t.Errorf("the same events again: %s, want skipped", st)
	}
	if fmt.Sprint(afters) != "[ p2]" {
		t.Errorf("cursors sent: %q", afters)
	}
	down = true
	if _, _, err := k.Poll(context.Background()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a down source: %v", err)
	}
	if st := w.s.Connectors()["feed"]; !strings.Contains(st.Error, "upstream is down") {
		t.Errorf("status: %+v", st)
	}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 20: connect.MaxBackoff} {
		if got := connect.Backoff(time.Second, n); got != want {
			t.Errorf("backoff after %d failures: %s, want %s", n, got, want)
		}
	}
}

// prose.serve.yaml's problems are named at their lines.
func TestReadConfig(t *testing.T) {
	g, _, _ := graph.Load("../testdata/redeliver")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, connect.FileName), []byte("connectors:\n  feed:\n    file: inbox\n    id_field: id\n  tally:\n    exec: ./x\n  feed2:\n    http: http://x\n    evry: 1s\n"), 0o644)
	cs, diags, err := connect.ReadConfig(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	got := diags.String()
	for _, want := range []string{
		"prose.serve.yaml:5:3: error: connector \"tally\": no gateway has that id (gateways: feed)",
		"prose.serve.yaml:7:3: error: connector \"feed2\": no gateway has that id",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	if len(cs) != 1 || cs[0].Kind != "file" || cs[0].Target != filepath.Join(dir, "inbox") || cs[0].IDField != "id" || cs[0].Every != time.Second {
		t.Errorf("configs: %+v", cs)
	}
	os.WriteFile(filepath.Join(dir, connect.FileName), []byte("connectors:\n  feed:\n    http: http://x\n    evry: 1s\n"), 0o644)
	if _, diags, _ := connect.ReadConfig(dir, g); !strings.Contains(diags.String(), "prose.serve.yaml:4:5: error: connector feed: unknown key \"evry\"") {
		t.Errorf("unknown key:\n%s", diags)
	}
}

// The http form: a hostile cursor reaches the server as the query value
// it is.
func TestHTTPConnectorPassesDataAsData(t *testing.T) {
	w := newWorld(t)
	var mu sync.Mutex
	var afters []string
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		afters = append(afters, r.URL.Query().Get("after"))
		ev, _ := json.Marshal(map[string]string{"id": hostile[next]})
		next++
		rw.Write(ev)
	}))
	defer srv.Close()
	k := w.connector(&connect.Config{Gateway: "feed", Kind: "http", Target: srv.URL + "/events?after={cursor}", IDField: "id", Every: time.Second})
	for range hostile {
		w.poll(k, 1, 0)
	}
	want := append([]string{""}, hostile[:len(hostile)-1]...)
	if fmt.Sprintf("%q", afters) != fmt.Sprintf("%q", want) {
		t.Errorf("cursors the server got: %q, want %q", afters, want)
	}
}

// A program that prints without end is stopped at MaxPollBytes, with an
// error that says so; nothing of its output is delivered.
func TestExecConnectorOutputIsCapped(t *testing.T) {
	if _, err := os.Stat("/usr/bin/yes"); err != nil {
		t.Skip("no yes(1) here")
	}
	w := newWorld(t)
	k := w.connector(&connect.Config{Gateway: "feed", Kind: "exec", Target: "/usr/bin/yes {cursor}", Every: time.Second})
	events, _, err := k.Poll(context.Background())
	if events != 0 || err == nil || !strings.Contains(err.Error(), "output exceeds") {
		t.Errorf("an endless program: %d events, %v", events, err)
	}
}
