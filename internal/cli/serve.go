package cli

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/serve/connect"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/telemetry"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// serveOptions are the flags and argument of `prose serve`.
type serveOptions struct {
	path, state, addr, tokenFile, signKey, logFormat string
	trustedKey                                       string
	wait                                             bool
	model, baseURL                                   string
	slots, inputs                                    []string
	maxEventBytes                                    int64
	maxParallel                                      int
	renderTimeout                                    time.Duration
	engine                                           string
	conn                                             connFlags
	otel                                             otelFlags
}

func newServeCmd(s streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve PATH",
		Short: "Keep a world model current: drain it on every trigger, over HTTP",
		Long: `serve loads the project graph at PATH and keeps its world model (the
state directory, default PATH/.prose/world) current. Each trigger (POST
/trigger/ID: a JSON event for a gateway, or an empty body to wake any node)
is written to a durable queue in the state directory before it is answered
202 with the id of the drain that will answer it; drains run one at a time,
and the triggers that arrive during one are folded into the next. An event
that repeats one its gateway was given before leaves a skipped receipt;
one sent with a Content-Type other than application/json (or none) is
refused (415). A render that has not finished after --render-timeout is
stopped and fails, naming its node; the drain goes on with the others.

HTTP listens on 127.0.0.1:7077 unless --http says otherwise; an address
that is not loopback needs --token-file, and with a token file every
endpoint but /health wants "Authorization: Bearer TOKEN".

  GET  /health                 liveness
  GET  /status                 every node's last receipt, the queue depth
  GET  /nodes/ID[?facet=F]     a node's published truth, or one facet
  GET  /receipts[?node=ID][&since=N]  receipts of store drains after N
  GET  /graph                  the wired graph (JSON)
  POST /trigger/ID             queue an event or a wake; 202 {"drain": N}
  GET  /drains/N               queued, running or done, and its outcome
  GET  /metrics                Prometheus text
  GET  /ui/                    the web page of prose ui (the token in a cookie)

SIGTERM or Ctrl-C abandons the level being rendered (nothing of it is
committed; its triggers stay queued for the next start) and exits 0.

With --engine temporal the graph is served by a workflow on a Temporal
cluster (one per state directory; a second serve of the same directory
joins it): a trigger is answered 202 once the workflow has recorded it,
and workers (prose worker, on the same task queue) render and commit the
nodes. PATH, the state directory, --slot programs and --sign-key must be
reachable at the same paths on every worker (a shared filesystem): the
state directory stays the world model's store. Stopping this process
stops only its HTTP face; the workflow keeps draining. As it starts, the
workflow takes the graph again when the project was edited since it took
it, and queues a drain for the edit or for nodes that went stale.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runServe(cmd.Context(), s, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.state, "state", "", "world model state `DIR` (default PATH/.prose/world)")
	fl.StringArrayVar(&o.slots, "slot", nil, "bind a node's render `NODE=exec:COMMAND` ('*=exec:COMMAND' for every node not named); repeatable")
	fl.StringArrayVar(&o.inputs, "input", nil, "give `NODE.INPUT=VALUE`, an input nothing in the project maintains, to every drain (as prose run DIR --input); repeatable")
	fl.StringVar(&o.addr, "http", "127.0.0.1:7077", "listen on `ADDR` (HOST:PORT; port 0 picks one, printed on stderr)")
	fl.StringVar(&o.tokenFile, "token-file", "", "require the bearer token in `FILE` on every endpoint but /health (needed off loopback)")
	fl.Int64Var(&o.maxEventBytes, "max-event-bytes", httpapi.DefaultMaxEventBytes, "refuse a trigger body longer than `N` bytes (413)")
	fl.IntVar(&o.maxParallel, "max-parallel", 4, "render at most `N` independent nodes at once")
	fl.StringVar(&o.signKey, "sign-key", "", "sign every receipt with the ed25519 private key in `FILE` (PEM PKCS #8, or a hex seed)")
	fl.StringVar(&o.logFormat, "log-format", "text", "drain log lines on stderr: text or json")
	fl.StringVar(&o.trustedKey, "trusted-key", "", "refuse receipts not signed by the ed25519 public key in `FILE` (default $"+trustedKeyEnv+")")
	fl.BoolVar(&o.wait, "wait", false, "wait while another process writes the state directory, instead of refusing")
	fl.StringVar(&o.model, "model", "", "`MODEL` for llm renders and Executions (default $PROSE_MODEL)")
	fl.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API base `URL` (default $OPENAI_BASE_URL)")
	fl.StringVar(&o.engine, "engine", "local", "drain with `ENGINE` local (this process) or temporal (a workflow, and the workers of its task queue)")
	addRenderTimeoutFlag(cmd, &o.renderTimeout, "")
	addConnFlags(cmd, &o.conn)
	addOtelFlags(cmd, &o.otel)
	cmd.Flags().Lookup("otel-file").Usage = "write each drain's OpenTelemetry spans to `FILE`, one JSON object a line (OTLP over HTTP goes where $OTEL_EXPORTER_OTLP_ENDPOINT says)"
	return cmd
}

// readToken reads a token file: its first line, trimmed; never printed.
func readTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", errors.New("the file is empty: write the token on its first line")
	}
	return tok, nil
}

// openWorld loads PATH's graph, its bindings and its state directory,
// as prose run does for a drain. With lock set, the state directory's
// writers' lock is taken (lock names the holder to put in it) before
// anything of the directory is read or written; release is then the
// lock's release, else a no-op.
func openWorld(ctx context.Context, s streams, path, state string, slots []string, ro *runOptions, lock string, wait bool) (g *graph.Graph, bindings *servedWorld, st *store.Store, release func(), err error) {
	release = func() {}
	g, bindings, state, err = loadServed(s, path, state, slots, ro, nil)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if lock != "" {
		if release, err = lockState(ctx, state, lock, wait); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	st, err = store.Open(state)
	if err != nil {
		release()
		return nil, nil, nil, nil, &exitError{Code: exitUsage, Err: err}
	}
	return g, bindings, st, release, nil
}

// loadServed loads PATH's graph and its bindings, and names its state
// directory (PATH/.prose/world unless state names one). The spec files
// are read through specs (nil: a new spec graph).
func loadServed(s streams, path, state string, slots []string, ro *runOptions, specs *specgraph.Graph) (*graph.Graph, *servedWorld, string, error) {
	g, diags, err := loadWorldWith(path, specs)
	if err != nil {
		return nil, nil, "", &exitError{Code: exitUsage, Err: err}
	}
	callers, err := worldInputs(g, ro.inputs)
	if err != nil {
		return nil, nil, "", err
	}
	diags = graph.Needed(g.Given(diags, givenInputs(g, ro.inputs)))
	fmt.Fprint(s.err, diags.String())
	if diags.HasErrors() {
		return nil, nil, "", &exitError{Code: exitUsage}
	}
	p, err := worldDrain(g, slots, ro)
	if err != nil {
		return nil, nil, "", err
	}
	for _, w := range p.Unchecked() {
		fmt.Fprintln(s.err, w)
	}
	bindings := &servedWorld{drain: p, callers: callers}
	if state == "" {
		state = filepath.Join(g.Root, ".prose", "world")
	}
	p.State = state
	return g, bindings, state, nil
}

// servedWorld is what a served graph drains with: its prepared drain
// (package drain), and the inputs nothing in the project maintains, as
// --input gives them to every drain.
type servedWorld struct {
	drain   *drain.Prepared
	callers map[string]map[string]any
}

func serveServer(g *graph.Graph, bindings *servedWorld, st *store.Store, maxParallel int, key ed25519.PrivateKey, drained func(*serve.Outcome), reload func(*specgraph.Graph) (*serve.Reloaded, error)) (*serve.Server, error) {
	p := bindings.drain
	return serve.New(serve.Options{
		Graph: g, Store: st, MaxParallel: maxParallel, SignKey: key, Drained: drained, Locked: true,
		Drain: p, CallerInputs: bindings.callers, Reload: reload,
	})
}

// reloadServed loads PATH's graph and bindings again, as loadServed did
// at start, for a serve whose files changed: the same slots and options,
// the same state directory and trace export, the spec files read through
// specs (serve.Options.Reload: the unchanged ones are not read again).
// What loadServed would print and refuse to start on is the error, each
// finding at its file:line.
func reloadServed(path, state string, slots []string, ro *runOptions, spans *telemetry.World) func(*specgraph.Graph) (*serve.Reloaded, error) {
	return func(specs *specgraph.Graph) (*serve.Reloaded, error) {
		var out strings.Builder
		g, bindings, _, err := loadServed(streams{out: io.Discard, err: &out}, path, state, slots, ro, specs)
		if err != nil {
			msg := strings.TrimSpace(out.String())
			var ee *exitError
			if !errors.As(err, &ee) || ee.Err != nil {
				msg = strings.TrimSpace(msg + "\n" + err.Error())
			}
			return nil, errors.New(msg)
		}
		bindings.drain.State = state
		bindings.drain.Spans = spans
		return &serve.Reloaded{Graph: g, Drain: bindings.drain, CallerInputs: bindings.callers}, nil
	}
}

func runServe(ctx context.Context, s streams, o *serveOptions) error {
	if o.logFormat != "text" && o.logFormat != "json" {
		return usageErrorf("serve: unknown --log-format %q (want text or json)", o.logFormat)
	}
	if o.maxParallel < 1 {
		return usageErrorf("serve: --max-parallel must be at least 1, got %d", o.maxParallel)
	}
	if o.maxEventBytes < 1 {
		// Decided: not the default in silence (httpapi and connect read
		// 0 as theirs).
		return usageErrorf("serve: --max-event-bytes must be at least 1, got %d", o.maxEventBytes)
	}
	if _, _, err := net.SplitHostPort(o.addr); err != nil {
		return usageErrorf("serve: --http %q: want HOST:PORT (%v)", o.addr, err)
	}
	var token string
	if o.tokenFile != "" {
		t, err := readTokenFile(o.tokenFile)
		if err != nil {
			return usageErrorf("serve: --token-file %s: %v", o.tokenFile, err)
		}
		token = t
	} else if ip := net.ParseIP(hostOf(o.addr)); hostOf(o.addr) == "" || (ip != nil && !ip.IsLoopback()) {
		// Refused at once where the text says it; a name is judged by
		// the address it binds (serveHTTP).
		return notLoopback(o.addr)
	}
	if o.engine != "local" && o.engine != "temporal" {
		return usageErrorf("serve: unknown --engine %q (want local or temporal)", o.engine)
	}
	if o.engine == "temporal" && (o.model != "" || o.baseURL != "") {
		return usageErrorf("serve: with --engine temporal the workers render: give --model and --base-url to prose worker")
	}
	if o.engine == "temporal" && o.renderTimeout != reconcile.DefaultRenderTimeout {
		return usageErrorf("serve: with --engine temporal the workers render: give --render-timeout to prose worker")
	}
	if o.engine == "temporal" && (o.otel.file != "" || o.otel.content) {
		return usageErrorf("serve: with --engine temporal the workers render, and export no drain spans: leave out --otel-file and --otel-content")
	}
	var key ed25519.PrivateKey
	if o.signKey != "" {
		k, err := readSignKey(o.signKey)
		if err != nil {
			return usageErrorf("--sign-key: %v", err)
		}
		key = k
	}
	if o.engine == "temporal" && len(o.inputs) > 0 {
		return usageErrorf("serve: --input is not taken with --engine temporal (the workers' drains cannot be given it); maintain the input in the project instead")
	}
	// A local serve is the state directory's writer: its lock is taken
	// before the directory is read. On Temporal the workers drain, each
	// under the lock.
	lock := "prose serve"
	if o.engine == "temporal" {
		lock = ""
	}
	g, bindings, st, release, err := openWorld(ctx, s, o.path, o.state, o.slots, &runOptions{model: o.model, baseURL: o.baseURL, inputs: o.inputs, renderTimeout: o.renderTimeout}, lock, o.wait)
	if err != nil {
		return err
	}
	defer release()
	if st.Trusted, err = trustedKey(o.trustedKey); err != nil {
		return err
	}
	log := newDrainLog(s, o.logFormat)
	if o.engine == "temporal" {
		return serveTemporal(ctx, s, o, g, st, token, log)
	}
	spans, endSpans, err := o.otel.world(ctx, g.Root, o.baseURL, s.err)
	if err != nil {
		return err
	}
	defer endSpans()
	bindings.drain.Spans = spans
	srv, err := serveServer(g, bindings, st, o.maxParallel, key, log,
		reloadServed(o.path, bindings.drain.State, o.slots, &runOptions{model: o.model, baseURL: o.baseURL, inputs: o.inputs, renderTimeout: o.renderTimeout}, spans))
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	defer srv.Close()
	gone := srv.HeldGone()
	var goneNodes []string
	for n := range gone {
		goneNodes = append(goneNodes, n)
	}
	sort.Strings(goneNodes)
	for _, n := range goneNodes {
		// said at start, and in the first drain's outcome (held_gone)
		fmt.Fprintln(s.err, heldGoneText(n, gone[n], st.Dir))
	}
	return serveHTTP(ctx, s, o, g, srv, token, srv.Run)
}

// serveHTTP serves b over HTTP on o.addr, with b's connectors, while run
// drains, until ctx ends (exit 0) or either fails.
func serveHTTP(ctx context.Context, s streams, o *serveOptions, g *graph.Graph, b serveBackend, token string, run func(context.Context) error) error {
	conns, err := serveConnectors(s, g, b, o.maxEventBytes)
	if err != nil {
		return err
	}
	ln, loop, err := httpapi.ListenLoopback(o.addr)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	if token == "" && !loop {
		ln.Close()
		return notLoopback(o.addr + " (bound " + ln.Addr().String() + ")")
	}
	h, closeUI, err := uiHandler(httpapi.Handler(b, httpapi.Options{Token: token, MaxEventBytes: o.maxEventBytes}), g, b, token)
	if err != nil {
		ln.Close()
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", err)}
	}
	defer closeUI()
	hs := httpapi.Server(h)
	hs.RegisterOnShutdown(closeUI)
	httpErr := make(chan error, 1)
	go func() { httpErr <- hs.Serve(ln) }()
	if rs := g.AllRoutes(); len(rs) > 0 {
		// Said before the line that says it listens, which a caller
		// waits for.
		fmt.Fprintf(s.err, "prose serve: routes the gateways declare: %s\n", strings.Join(rs, ", "))
	}
	fmt.Fprintf(s.err, "prose serve: listening on http://%s (state %s)\n", ln.Addr(), b.Store().Dir)
	// The drains and the connectors stop with ctx, and serveHTTP returns
	// only once they have: the caller closes the server (its queue, its
	// watches, the state directory's lock) after, never under a drain.
	ctx, stop := context.WithCancel(ctx)
	var connsDone sync.WaitGroup
	defer func() { stop(); connsDone.Wait() }()
	for _, k := range conns {
		connsDone.Add(1)
		go func() { defer connsDone.Done(); k.Run(ctx, nil) }()
	}
	runErr := make(chan error, 1)
	go func() { runErr <- run(ctx) }()
	var fail error
	ran := false
	select {
	case err := <-runErr:
		fail, ran = err, true
	case err := <-httpErr:
		fail = err
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(shut)
	if !ran {
		stop()
		if err := <-runErr; fail == nil || errors.Is(fail, http.ErrServerClosed) && err != nil {
			fail = err
		}
	}
	if fail != nil && !errors.Is(fail, http.ErrServerClosed) {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("serve: %w", fail)}
	}
	fmt.Fprintln(s.err, "prose serve: stopped; what was acknowledged and not yet drained stays queued")
	return nil
}

// serveBackend is what serveHTTP serves: a local serve.Server or the
// front of a serve workflow.
type serveBackend interface {
	httpapi.Backend
	connect.Sink
}

// serveConnectors opens the connectors of the project's prose.serve.yaml
// (none without one); its problems are a usage error at their lines.
func serveConnectors(s streams, g *graph.Graph, srv connect.Sink, maxEventBytes int64) ([]*connect.Connector, error) {
	cfgs, diags, err := connect.ReadConfig(g.Root, g)
	if err != nil {
		return nil, &exitError{Code: exitUsage, Err: fmt.Errorf("serve: %w", err)}
	}
	fmt.Fprint(s.err, diags.String())
	if diags.HasErrors() {
		return nil, &exitError{Code: exitUsage}
	}
	var out []*connect.Connector
	for _, c := range cfgs {
		c.MaxEventBytes = maxEventBytes
		k, err := connect.New(c, srv, g.Root)
		if err != nil {
			return nil, &exitError{Code: exitFailure, Err: fmt.Errorf("serve: connector %s: %w", c.Gateway, err)}
		}
		out = append(out, k)
	}
	return out, nil
}

// newDrainLog writes one line per drain: what triggered it, what it
// rendered, skipped and failed, and its tokens.
func newDrainLog(s streams, format string) func(*serve.Outcome) {
	var h slog.Handler = slog.NewTextHandler(s.err, nil)
	if format == "json" {
		h = slog.NewJSONHandler(s.err, nil)
	}
	l := slog.New(h)
	return func(o *serve.Outcome) {
		count := map[string]int{}
		var order []string
		dups, self := 0, 0
		for _, t := range o.Triggers {
			if count[t.Node] == 0 {
				order = append(order, t.Node)
			}
			count[t.Node]++
			if t.Dup {
				dups++
			}
			if t.Self {
				self++
			}
		}
		var trig []string
		for _, n := range order {
			trig = append(trig, fmt.Sprintf("%s:%d", n, count[n]))
		}
		attrs := []any{"drain", o.Drain, "triggers", strings.Join(trig, ","), "duplicates", dups, "self", self,
			"rendered", o.Rendered, "skipped", o.Skipped, "failed", o.Failed, "tokens", o.Tokens, "duration_ms", o.MS}
		if o.Edited {
			attrs = append(attrs, "edited", true)
		}
		if o.Reload != "" {
			attrs = append(attrs, "reload", o.Reload)
		}
		if o.Stale != "" {
			attrs = append(attrs, "stale", o.Stale)
		}
		if len(o.Held) > 0 {
			var held []string
			for n, fp := range o.Held {
				held = append(held, n+":"+fp)
			}
			sort.Strings(held)
			// the oldest event each failed gateway holds: see them with
			// prose receipts held, end one's hold with prose receipts
			// set-aside NODE FP --why TEXT
			attrs = append(attrs, "held", strings.Join(held, ","))
		}
		if len(o.Unwoken) > 0 {
			attrs = append(attrs, "unwoken", unwokenText(o.Unwoken))
		}
		if len(o.HeldGone) > 0 {
			var gone []string
			for n, count := range o.HeldGone {
				gone = append(gone, fmt.Sprintf("%s:%d", n, count))
			}
			sort.Strings(gone)
			// events held for gateways not in the project, which no
			// drain delivers: restore the file, or end each hold
			// (prose receipts held, prose receipts set-aside)
			attrs = append(attrs, "held_gone", strings.Join(gone, ","))
		}
		if o.Error != "" {
			l.Error("drain", append(attrs, "error", o.Error)...)
			return
		}
		if o.Stale != "" || len(o.Unwoken) > 0 || len(o.HeldGone) > 0 {
			l.Warn("drain", attrs...)
			return
		}
		l.Info("drain", attrs...)
	}
}

// unwokenText is the why of each node a wake did nothing to, by node id:
// one line each.
func unwokenText(why map[string]string) string {
	var out []string
	for _, w := range why {
		out = append(out, w)
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// notLoopback is the refusal to serve without a token where other
// machines can reach the server.
func notLoopback(addr string) error {
	return usageErrorf("serve: --http %s is not a loopback address: give --token-file FILE, so that nothing but /health answers without its bearer token", addr)
}

// hostOf is the host of HOST:PORT ("" when there is none or addr is not
// that form).
func hostOf(addr string) string {
	host, _, _ := net.SplitHostPort(addr)
	return host
}
