// Package connect feeds gateways from outside: the connectors `prose
// serve` runs beside its HTTP triggers, configured in the project's
// prose.serve.yaml.
//
// # The file (decided)
//
//	connectors:
//	  counter-events:            # a gateway's id
//	    file: inbox              # a directory, relative to the project
//	    id_field: id
//	  prices:
//	    http: http://127.0.0.1:8080/events?after={cursor}
//	    every: 30s
//	    id_field: id
//	  tickets:
//	    exec: ./poll.sh --after {cursor}  # a program and its arguments, no shell
//	    every: 1m
//	    id_field: ticket_id
//
// Exactly one of file, http, exec. file: each new *.json file of the
// directory (by name, in name order) is one event or a JSON array of
// events; only regular files are read (a named pipe, a device, a link to
// one is refused by name, and the other files are still read), each at
// most MaxEventBytes. http: GET the URL, answered by a JSON array of
// events (or one object), at most MaxPollBytes. exec: the program prints
// one JSON event a line, at most MaxPollBytes in all; it runs in the
// project directory through package execsvc (its own process group,
// stopped with a grace period when serve stops). `{cursor}` is the id of
// the last event delivered ("" before any): URL-escaped for http; for
// exec, data passed as data, never through a shell (ParseExec: the word
// holding it is one argument, and PROSE_CURSOR holds it too). Each event
// is at most MaxEventBytes, as a POST /trigger body is. every is the
// polling interval (default 1s for file, 30s otherwise).
//
// Each connector keeps a durable cursor in the state directory
// (.serve/connectors/GATEWAY.json): the files consumed, the last id, and
// the ids delivered. An event whose id_field value was delivered before
// is not delivered again: it is a manual wake of the gateway, which
// leaves a skipped receipt (without id_field, events are told apart by
// content, as the queue does). A poll that fails backs off (doubling
// from every, at most 5 minutes), and its error is on GET /status until a
// poll succeeds. The cursor is written after the events are queued, so a
// kill in between delivers them again, and the queue knows them by
// content: at least once, never lost.
//
// Main types: Config, Connector. Entry points: ReadConfig, New,
// (*Connector).Poll, (*Connector).Run.
package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/execsvc"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// FileName is the serve configuration file at a project's root.
const FileName = "prose.serve.yaml"

// Config is one gateway's connector.
type Config struct {
	Gateway string
	Kind    string // "file", "http" or "exec"
	Target  string // the directory, URL or command
	Every   time.Duration
	IDField string
	Pos     diag.Position
	// MaxEventBytes bounds each event (0: DefaultMaxEventBytes); prose
	// serve sets its --max-event-bytes.
	MaxEventBytes int64
}

// Bounds of what a connector reads.
const (
	// DefaultMaxEventBytes bounds an event when Config leaves it 0, as
	// a POST /trigger body is bounded.
	DefaultMaxEventBytes = 1 << 20
	// MaxPollBytes bounds what one poll of an http source or an exec
	// program returns, all its events together.
	MaxPollBytes = 16 << 20
)

func (c *Config) maxEvent() int64 {
	if c.MaxEventBytes > 0 {
		return c.MaxEventBytes
	}
	return DefaultMaxEventBytes
}

// ReadConfig reads root's prose.serve.yaml (none: nil), checking each
// connector against g: a diagnostic at the line of each problem.
func ReadConfig(root string, g *graph.Graph) ([]*Config, diag.List, error) {
	path := filepath.Join(root, FileName)
	src, err := filekind.ReadFile(path) // a named pipe is refused, not waited on
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	r := &configReader{f: diag.NewFile(path, src), src: src, root: root, g: g}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		r.diags.Errorf(r.f, 0, "serve/config", "%s is not YAML: %v", FileName, err)
		return nil, r.diags, nil
	}
	if len(doc.Content) == 0 {
		return nil, nil, nil
	}
	top := doc.Content[0]
	var conns *yaml.Node
	for i := 0; top.Kind == yaml.MappingNode && i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "connectors" {
			conns = top.Content[i+1]
		} else {
			r.diags.Errorf(r.f, r.at(top.Content[i]), "serve/config", "%s: unknown key %q (want connectors)", FileName, top.Content[i].Value)
		}
	}
	if conns == nil || conns.Kind != yaml.MappingNode {
		if conns != nil || len(r.diags) == 0 {
			r.diags.Errorf(r.f, 0, "serve/config", "%s: want connectors: a mapping of GATEWAY: {file|http|exec: ..., id_field: ..., every: ...}", FileName)
		}
		return nil, r.diags, nil
	}
	var out []*Config
	for i := 0; i+1 < len(conns.Content); i += 2 {
		if c := r.connector(conns.Content[i], conns.Content[i+1]); c != nil {
			out = append(out, c)
		}
	}
	return out, r.diags, nil
}

// configReader reads one prose.serve.yaml, collecting its diagnostics.
type configReader struct {
	f     *diag.File
	src   []byte
	root  string
	g     *graph.Graph
	diags diag.List
}

func (r *configReader) at(n *yaml.Node) diag.Pos { return lineCol(r.src, n.Line, n.Column) }

// connector reads the connector of gateway k, its mapping v; nil (with a
// diagnostic) when it cannot run.
func (r *configReader) connector(k, v *yaml.Node) *Config {
	f := r.f
	c := &Config{Gateway: k.Value, Pos: f.Position(r.at(k))}
	if n := r.g.Node(k.Value); n == nil || n.Kind != spec.KindGateway {
		r.diags.Errorf(f, r.at(k), "serve/config", "connector %q: no gateway has that id (gateways: %s)", k.Value, strings.Join(gateways(r.g), ", "))
		return nil
	}
	if v.Kind != yaml.MappingNode {
		r.diags.Errorf(f, r.at(v), "serve/config", "connector %s: want a mapping with file, http or exec", k.Value)
		return nil
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		key, val := v.Content[j], v.Content[j+1]
		switch key.Value {
		case "file", "http", "exec":
			if c.Kind != "" {
				r.diags.Errorf(f, r.at(key), "serve/config", "connector %s: both %s and %s: keep one", k.Value, c.Kind, key.Value)
			}
			c.Kind, c.Target = key.Value, val.Value
		case "id_field":
			c.IDField = val.Value
		case "every":
			d, err := time.ParseDuration(val.Value)
			if err != nil || d <= 0 {
				r.diags.Errorf(f, r.at(val), "serve/config", "connector %s: every %q is not a positive duration (30s, 5m, 1h)", k.Value, val.Value)
				continue
			}
			c.Every = d
		default:
			r.diags.Errorf(f, r.at(key), "serve/config", "connector %s: unknown key %q (want file, http, exec, id_field, every)", k.Value, key.Value)
		}
	}
	switch {
	case c.Kind == "":
		r.diags.Errorf(f, r.at(k), "serve/config", "connector %s: name its source: file: DIR, http: URL or exec: COMMAND", k.Value)
		return nil
	case c.Kind == "file" && !filepath.IsAbs(c.Target):
		c.Target = filepath.Join(r.root, c.Target)
	case c.Kind == "exec":
		if _, err := ParseExec(c.Target); err != nil {
			r.diags.Errorf(f, r.at(k), "serve/config", "connector %s: exec: %v", k.Value, err)
			return nil
		}
	}
	if c.Every == 0 {
		c.Every = 30 * time.Second
		if c.Kind == "file" {
			c.Every = time.Second
		}
	}
	return c
}

func gateways(g *graph.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		if n.Kind == spec.KindGateway {
			out = append(out, n.ID)
		}
	}
	return out
}

func lineCol(src []byte, line, col int) diag.Pos {
	p := 0
	for l := 1; l < line && p < len(src); l++ {
		i := bytes.IndexByte(src[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return diag.Pos(p + col - 1)
}

// Sink is what a connector delivers to: a serve.Server, or the front of
// a serve workflow on Temporal.
type Sink interface {
	Store() *store.Store
	Trigger(node string, event []byte) (drain int, dup bool, err error)
	SetConnector(gateway string, st serve.ConnectorState)
}

var _ Sink = (*serve.Server)(nil)

// Connector polls one source for one gateway.
type Connector struct {
	c      *Config
	s      Sink
	dir    string   // the project root: exec's working directory
	words  []string // exec's program and arguments (ParseExec)
	state  string   // the cursor file
	cur    cursor
	st     serve.ConnectorState
	client *http.Client
}

// cursor is a connector's durable state.
type cursor struct {
	Files []string        `json:"files,omitempty"`
	Last  string          `json:"last"`
	Seen  map[string]bool `json:"seen,omitempty"`
}

// New opens c's connector over s (its cursor in s's state directory);
// dir is the project root.
func New(c *Config, s Sink, dir string) (*Connector, error) {
	p := filepath.Join(s.Store().Dir, ".serve", "connectors", c.Gateway+".json")
	k := &Connector{c: c, s: s, dir: dir, state: p, client: &http.Client{Timeout: 30 * time.Second}}
	if c.Kind == "exec" {
		var err error
		if k.words, err = ParseExec(c.Target); err != nil {
			return nil, fmt.Errorf("exec: %v", err)
		}
	}
	b, err := filekind.ReadFile(p)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &k.cur); err != nil {
			return nil, fmt.Errorf("%s: %v (move it aside to start the connector over)", p, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if k.cur.Seen == nil {
		k.cur.Seen = map[string]bool{}
	}
	k.st = serve.ConnectorState{Kind: c.Kind, Cursor: k.cur.Last}
	s.SetConnector(c.Gateway, k.st)
	return k, nil
}

// Poll reads the source once and queues what is new: it returns the
// events delivered and the duplicates known by id.
func (k *Connector) Poll(ctx context.Context) (events, dups int, err error) {
	var evs []json.RawMessage
	var files []string
	var refused error // files of the directory not read; the rest is delivered
	switch k.c.Kind {
	case "file":
		evs, files, err = k.readDir()
		if evs != nil || files != nil {
			refused, err = err, nil
		}
	case "http":
		evs, err = k.get(ctx)
	case "exec":
		evs, err = k.run(ctx)
	}
	if err == nil {
		events, dups, err = k.deliver(evs)
	}
	if err == nil && len(files) > 0 {
		k.cur.Files = append(k.cur.Files, files...)
		sort.Strings(k.cur.Files)
	}
	if err == nil {
		err = k.save()
	}
	if err == nil {
		err = refused
	}
	k.st.Events += events
	k.st.Duplicates += dups
	k.st.Cursor = k.cur.Last
	k.st.Error, k.st.Retry = "", time.Time{}
	if err != nil {
		k.st.Error = err.Error()
	}
	k.s.SetConnector(k.c.Gateway, k.st)
	return events, dups, err
}

// deliver queues each event: an id delivered before is a manual wake.
func (k *Connector) deliver(evs []json.RawMessage) (events, dups int, err error) {
	for _, ev := range evs {
		if int64(len(ev)) > k.c.maxEvent() {
			return events, dups, fmt.Errorf("an event of %d bytes is longer than %d (--max-event-bytes): %s", len(ev), k.c.maxEvent(), cut(ev))
		}
		id := ""
		if k.c.IDField != "" {
			var m map[string]any
			if err := json.Unmarshal(ev, &m); err != nil {
				return events, dups, fmt.Errorf("an event is not a JSON object: %v", err)
			}
			v, ok := m[k.c.IDField]
			if !ok || v == nil {
				return events, dups, fmt.Errorf("an event has no %q (id_field): %s", k.c.IDField, cut(ev))
			}
			id = fmt.Sprint(v)
		}
		if id != "" && k.cur.Seen[id] {
			if _, _, err := k.s.Trigger(k.c.Gateway, nil); err != nil {
				return events, dups, err
			}
			dups++
			continue
		}
		if _, _, err := k.s.Trigger(k.c.Gateway, ev); err != nil {
			return events, dups, err
		}
		events++
		if id != "" {
			k.cur.Seen[id] = true
			k.cur.Last = id
		}
	}
	return events, dups, nil
}

func (k *Connector) save() error {
	b, err := json.Marshal(k.cur)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.state), 0o700); err != nil {
		return err
	}
	return wholefile.Write(k.state, b, 0o600)
}

// readDir reads the directory's *.json files not consumed yet: only
// regular files (or links to them), each at most maxEvent bytes, opened
// without waiting on a named pipe. A file refused is named in the error,
// which comes after the other files' events are returned, and it is not
// consumed: it is read once it is a regular file within bounds.
func (k *Connector) readDir() ([]json.RawMessage, []string, error) {
	names, err := filepath.Glob(filepath.Join(k.c.Target, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(k.c.Target); err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	var out []json.RawMessage
	var files []string
	var refused []string
	for _, p := range names {
		name := filepath.Base(p)
		if i := sort.SearchStrings(k.cur.Files, name); i < len(k.cur.Files) && k.cur.Files[i] == name {
			continue
		}
		b, err := k.readEventFile(p)
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		evs, err := split(b)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", p, err)
		}
		out = append(out, evs...)
		files = append(files, name)
	}
	if len(refused) > 0 {
		err = fmt.Errorf("not read: %s", strings.Join(refused, "; "))
	}
	return out, files, err
}

// readEventFile reads a dropped file: a regular one, within maxEvent.
func (k *Connector) readEventFile(p string) ([]byte, error) {
	f, err := filekind.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.IsDir() {
		return nil, fmt.Errorf("%s: a directory, not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, k.c.maxEvent()+1))
	if err == nil && int64(len(b)) > k.c.maxEvent() {
		err = fmt.Errorf("%s: longer than %d bytes (--max-event-bytes)", p, k.c.maxEvent())
	}
	return b, err
}

// split reads one JSON event or a JSON array of events.
func split(b []byte) ([]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var l []json.RawMessage
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("not a JSON array of events: %v", err)
		}
		return l, nil
	}
	if !json.Valid(b) {
		return nil, errors.New("not a JSON event")
	}
	return []json.RawMessage{b}, nil
}

func (k *Connector) get(ctx context.Context) ([]json.RawMessage, error) {
	u := strings.ReplaceAll(k.c.Target, "{cursor}", url.QueryEscape(k.cur.Last))
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxPollBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxPollBytes {
		return nil, fmt.Errorf("GET %s: the answer is longer than %d bytes: page it (the cursor is in {cursor})", k.c.Target, MaxPollBytes)
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s: %s", k.c.Target, resp.Status, cut(b))
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	return split(b)
}

func (k *Connector) run(ctx context.Context) ([]json.RawMessage, error) {
	svc := &execsvc.Service{Name: "connector " + k.c.Gateway, Command: k.c.Target, Argv: argv(k.words, k.cur.Last), Dir: k.dir,
		Env: []string{"PROSE_CURSOR=" + k.cur.Last, "PROSE_GATEWAY=" + k.c.Gateway}, MaxOutput: MaxPollBytes}
	out, err := svc.Output(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("exec %s: %v", k.c.Target, err)
	}
	var evs []json.RawMessage
	for n, line := range bytes.Split(out, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return nil, fmt.Errorf("exec %s: line %d is not a JSON event: %s", k.c.Target, n+1, cut(line))
		}
		evs = append(evs, append(json.RawMessage(nil), line...))
	}
	return evs, nil
}

func cut(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// MaxBackoff caps the wait after failed polls.
const MaxBackoff = 5 * time.Minute

// Backoff is the wait after n consecutive failed polls (n >= 1): every,
// doubled per failure, at most MaxBackoff.
func Backoff(every time.Duration, n int) time.Duration {
	d := every
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// Run polls every interval until ctx ends, backing off after errors.
// now is the clock (nil: time.Now).
func (k *Connector) Run(ctx context.Context, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	failures := 0
	for {
		wait := k.c.Every
		if _, _, err := k.Poll(ctx); err != nil && ctx.Err() == nil {
			failures++
			wait = Backoff(k.c.Every, failures)
			k.st.Retry = now().Add(wait)
			k.s.SetConnector(k.c.Gateway, k.st)
		} else {
			failures = 0
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
