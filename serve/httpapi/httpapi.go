// Package httpapi is the HTTP face of a serve.Server: health, status,
// published truths, receipts, the graph, triggers, drain outcomes and
// Prometheus metrics.
//
// Endpoints: GET /health, GET /status, GET /nodes/ID[?facet=F],
// GET /receipts[?node=ID][&since=N], GET /graph, POST /trigger/ID,
// GET /drains/ID, GET /metrics, and the routes the gateways declare
// (routes.go). With a token, every endpoint but /health
// answers 401 to a request without "Authorization: Bearer TOKEN" (the
// scheme in any case).
//
// Main types: Options, Backend. Entry points: Handler, Auth, and for every
// prose server that listens: ListenLoopback (loopback judged by the
// address bound), BearerOK, BodyDeadline and Server (see listen.go).
package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// DefaultMaxEventBytes bounds a trigger's body when Options leaves it 0.
const DefaultMaxEventBytes = 1 << 20

// Options configure the handler.
type Options struct {
	// Token, when set, is required as a bearer token by every endpoint
	// but /health.
	Token string
	// MaxEventBytes bounds a POST body (0: DefaultMaxEventBytes).
	MaxEventBytes int64
}

// Backend is what the handler serves: a serve.Server, or a front of the
// Temporal variant (its queue and outcomes in a workflow, its store
// shared).
type Backend interface {
	Graph() *graph.Graph
	Store() *store.Store
	Status() (map[string]*receipt.Receipt, error)
	Depth() int
	Connectors() map[string]serve.ConnectorState
	Trigger(node string, event []byte) (drain int, dup bool, err error)
	Drain(id int) (string, *serve.Outcome)
	WriteMetrics(w io.Writer)
}

var _ Backend = (*serve.Server)(nil)

// Staler is a Backend that reloads its graph from the project's files
// (serve.Server): Stale says why the graph it serves is not the one the
// files give ("" when it is). /status gives that reason as "stale" and
// /health says "stale": true, for as long as it holds.
type Staler interface {
	Stale() string
}

var _ Staler = (*serve.Server)(nil)

// staleOf is b's Stale, "" for a backend that does not reload.
func staleOf(b Backend) string {
	if s, ok := b.(Staler); ok {
		return s.Stale()
	}
	return ""
}

// Handler serves s.
func Handler(s Backend, o Options) http.Handler {
	if o.MaxEventBytes <= 0 {
		o.MaxEventBytes = DefaultMaxEventBytes
	}
	h := &handler{s: s, o: o}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		out := map[string]any{"ok": true}
		if staleOf(h.s) != "" {
			// Still serving, on the graph loaded before: said, not hidden
			// (why is said by /status, behind the token).
			out["stale"] = true
		}
		writeJSON(w, 200, out)
	})
	mux.HandleFunc("GET /status", h.status)
	mux.HandleFunc("GET /nodes/{id}", h.node)
	mux.HandleFunc("GET /receipts", h.receipts)
	mux.HandleFunc("GET /graph", h.graph)
	mux.HandleFunc("POST /trigger/{id}", h.trigger)
	mux.HandleFunc("GET /drains/{id}", h.drain)
	mux.HandleFunc("GET /metrics", h.metrics)
	return Auth(o.Token, h.routed(mux))
}

// Auth requires the bearer token on every path but /health; an empty
// token lets everything through. The comparison takes constant time.
func Auth(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := r.Header.Get("Authorization"); r.URL.Path != "/health" && !BearerOK(h, token) {
			if h == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="prose serve"`)
				writeError(w, http.StatusUnauthorized, "a bearer token is required: send Authorization: Bearer TOKEN (the token in --token-file)")
				return
			}
			// One was sent: say it was refused, not that none came.
			w.Header().Set("WWW-Authenticate", `Bearer realm="prose serve", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "the Authorization header is refused: send Authorization: Bearer TOKEN with the token in this server's --token-file")
			return
		}
		next.ServeHTTP(w, r)
	})
}

type handler struct {
	s Backend
	o Options
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func (h *handler) status(w http.ResponseWriter, r *http.Request) {
	st, err := h.s.Status()
	if err != nil {
		writeError(w, 500, err.Error())
		return
	}
	out := map[string]any{"nodes": st, "queue_depth": h.s.Depth()}
	if why := staleOf(h.s); why != "" {
		out["stale"] = why
	}
	if cs := h.s.Connectors(); len(cs) > 0 {
		out["connectors"] = cs
	}
	writeJSON(w, 200, out)
}

func (h *handler) node(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	n := h.s.Graph().Node(id)
	if n == nil {
		writeError(w, 404, fmt.Sprintf("no node %q", id))
		return
	}
	// The facet asked for is checked first: it is wrong whether or not
	// the node has published.
	f := r.URL.Query().Get("facet")
	switch {
	case f != "" && len(n.Facets) == 0:
		writeError(w, 404, noFacets(id, f))
		return
	case f != "" && !contains(n.Facets, f):
		writeError(w, 404, fmt.Sprintf("%s has no facet %q (facets: %s)", id, f, strings.Join(n.Facets, ", ")))
		return
	}
	v, ok, err := h.s.Store().CheckedTruth(id)
	switch {
	case err != nil:
		writeError(w, 500, err.Error())
		return
	case !ok:
		writeError(w, 404, fmt.Sprintf("%s has published no truth yet", id))
		return
	}
	if f != "" {
		m, _ := v.(map[string]any)
		v = m[f]
	}
	writeJSON(w, 200, v)
}

// noFacets says that node, which declares no facets, has no facet f.
func noFacets(node, f string) string {
	return fmt.Sprintf("%s has no facet %q: it declares no #### facets, its truth is one whole (ask without facet=)", node, f)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// receipts answers ?node=ID (default every node) and ?since=N (the
// receipts of store drains after N), in ledger order.
//
// What the API shows of the store (decided): what the ledgers vouch
// for, each checked from its head record as a drain checks it
// (store.CheckedLedger; a node's truth, store.CheckedTruth, is the
// version its last receipt names, read by its address). A ledger that
// does not check is answered 500 with the store's message, which names
// each file and the repair: never a forged receipt or truth with 200. So
// is a node whose directory does not agree with the drain index (an
// older copy put back, or removed while the index records receipts of
// it), as prose world show and prose receipts refuse it: the store's
// readers compare each ledger with the index (store/recorded.go).
func (h *handler) receipts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since := 0
	if v := q.Get("since"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, 400, fmt.Sprintf("since=%q: want a drain number (0 or more)", v))
			return
		}
		since = n
	}
	var nodes []string
	if id := q.Get("node"); id != "" {
		if h.s.Graph().Node(id) == nil {
			writeError(w, 404, fmt.Sprintf("no node %q", id))
			return
		}
		nodes = []string{id}
	} else {
		for _, n := range h.s.Graph().Nodes {
			nodes = append(nodes, n.ID)
		}
	}
	out := []*receipt.Receipt{}
	for _, n := range nodes {
		rs, err := h.s.Store().CheckedLedger(n)
		if err != nil {
			writeError(w, 500, err.Error())
			return
		}
		for _, rc := range rs {
			if rc.Drain > since {
				out = append(out, rc)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Drain != out[j].Drain {
			return out[i].Drain < out[j].Drain
		}
		return out[i].Seq < out[j].Seq
	})
	writeJSON(w, 200, out)
}

func (h *handler) graph(w http.ResponseWriter, r *http.Request) {
	b, err := h.s.Graph().Format("json")
	if err != nil {
		writeError(w, 500, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// trigger queues the body (a JSON event; empty for a manual wake) and
// answers 202 once it is on disk.
func (h *handler) trigger(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxEventBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("event larger than %d bytes (--max-event-bytes)", h.o.MaxEventBytes))
			return
		}
		writeError(w, 400, err.Error())
		return
	}
	var event []byte
	if len(strings.TrimSpace(string(body))) > 0 {
		event = body
	}
	if event != nil {
		if msg := notJSON(r.Method+" "+r.URL.Path, r.Header.Get("Content-Type")); msg != "" {
			writeError(w, http.StatusUnsupportedMediaType, msg)
			return
		}
	}
	drain, dup, err := h.s.Trigger(id, event)
	switch {
	case errors.Is(err, serve.ErrNoNode):
		writeError(w, 404, err.Error())
		return
	case errors.Is(err, serve.ErrNotGateway), errors.Is(err, serve.ErrBadEvent):
		writeError(w, 400, err.Error())
		return
	case err != nil:
		writeError(w, 500, err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"drain": drain, "duplicate": dup})
}

// notJSON says why an event sent to at ("POST /inbox/deliver") with
// Content-Type ct is refused, "" when it is taken. Decided: an event is sent as application/json (its
// parameters, such as charset=utf-8, aside) or with no Content-Type; a
// body that says it is something else (a form, text) is refused with
// 415 rather than read as JSON it did not claim to be. A wake, with no
// body, is taken whatever it says.
func notJSON(at, ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		return ""
	}
	hint := ""
	if err == nil && mt == "application/x-www-form-urlencoded" {
		hint = " (curl -d sends that unless told: add -H 'Content-Type: application/json')"
	}
	return fmt.Sprintf("%s takes a JSON event: send it as Content-Type: application/json (or with none), not %q%s", at, ct, hint)
}

func (h *handler) drain(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeError(w, 400, "want a drain number")
		return
	}
	state, o := h.s.Drain(id)
	if state == "unknown" {
		writeError(w, 404, fmt.Sprintf("no drain %d", id))
		return
	}
	writeJSON(w, 200, map[string]any{"drain": id, "state": state, "outcome": o})
}

func (h *handler) metrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	h.s.WriteMetrics(w)
}
