package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/proselang/prose/mcpserve"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve/httpapi"
)

// mcpOptions are the flags of `prose mcp`.
type mcpOptions struct {
	http      string
	tokenFile string
	allowExec bool
	runDir    string
	otel      otelFlags
}

const mcpLong = `mcp serves prose to an agent host (Claude Code, Codex, Cursor, any
Model Context Protocol client): over stdin and stdout by default, as the
host starts it, or over streamable HTTP with --http ADDR.

Tools: lint, show, graph, run (returns a run_id at once, or waits as
result does with wait_seconds), result (waits at most 30 s for a run;
while it waits, one progress notification per finished call, under its
progress token), resume, replay and runs. Runs are journaled under --run-dir, so prose
runs, prose resume and prose replay see them too. Paths are relative to
the directory the server starts in.

--http binds 127.0.0.1 unless ADDR names a host; an address that is not
loopback once bound (a name is judged by what it resolved to) needs
--token-file FILE, whose content is the bearer token every request must
send (Authorization: Bearer TOKEN), and is refused without one. Without a
token, a run over HTTP may not bind a slot to exec: (any local user could
run any program as the server's user); --allow-exec allows it.

Over stdio, a request the client cancels gets no response; when the
client closes its end, every request in progress is answered before
prose exits; Ctrl-C stops the calls in progress and the runs at once
(journaled: prose resume goes on with them).

Exit status: 0 when the client closes the connection, or on Ctrl-C;
2 bad usage.`

const mcpExample = `  # What an agent host's .mcp.json starts:
  prose mcp

  # One server for several clients, on this machine only:
  prose mcp --http 127.0.0.1:7413

  # On a network, with a token:
  prose mcp --http 0.0.0.0:7413 --token-file ~/.config/prose/mcp-token`

func newMCPCmd(s streams) *cobra.Command {
	o := &mcpOptions{}
	cmd := &cobra.Command{
		Use:     "mcp [--http ADDR [--token-file FILE]]",
		Short:   "Serve lint, graph, run, result, replay... as Model Context Protocol tools to an agent host",
		Long:    mcpLong,
		Example: mcpExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), s, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.http, "http", "", "serve streamable HTTP at `ADDR` (host:port; a bare :port binds 127.0.0.1) instead of stdio")
	fl.StringVar(&o.tokenFile, "token-file", "", "require the bearer token held in `FILE` on every HTTP request (needed off loopback)")
	fl.BoolVar(&o.allowExec, "allow-exec", false, "over --http without --token-file, let clients bind slots to exec: programs (every local user can then run any program as this user)")
	fl.StringVar(&o.runDir, "run-dir", run.DefaultRunDir, "directory `DIR` holding run journals")
	addOtelFlags(cmd, &o.otel)
	return cmd
}

func runMCP(ctx context.Context, s streams, o *mcpOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var token string
	addr := ""
	if o.http != "" {
		var err error
		if addr, err = mcpAddr(o.http); err != nil {
			return err
		}
		if token, err = readToken(o.tokenFile); err != nil {
			return err
		}
		if token == "" && !loopback(addr) {
			return usageErrorf("mcp: --http %s is reachable from other machines: give --token-file FILE with the bearer token clients must send (or bind 127.0.0.1)", o.http)
		}
	} else if o.tokenFile != "" {
		return usageErrorf("mcp: --token-file applies to --http; stdio needs no token")
	} else if o.allowExec {
		return usageErrorf("mcp: --allow-exec applies to --http; over stdio the host that starts prose runs what it likes")
	}
	var ro run.Options
	endSpans, err := o.otel.open(ctx, &ro, s.err)
	if err != nil {
		return err
	}
	defer endSpans()
	srv := mcpserve.New(mcpserve.Options{RunDir: o.runDir, Telemetry: ro.Telemetry})
	defer srv.Close()
	if addr == "" {
		err := srv.MCP().Run(ctx, mcpserve.Stdio(ctx, s.in, s.out))
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
			return &exitError{Code: exitFailure, Err: fmt.Errorf("mcp: %w", err)}
		}
		return nil
	}
	return serveMCPHTTP(ctx, s, srv, addr, token, o.allowExec)
}

// serveMCPHTTP serves srv over streamable HTTP at addr until ctx ends.
func serveMCPHTTP(ctx context.Context, s streams, srv *mcpserve.Server, addr, token string, allowExec bool) error {
	ln, loop, err := httpapi.ListenLoopback(addr)
	if err != nil {
		return usageErrorf("mcp: --http: %v", err)
	}
	if token == "" && !loop {
		ln.Close()
		return usageErrorf("mcp: --http %s bound %s, which is reachable from other machines: give --token-file FILE with the bearer token clients must send (or bind 127.0.0.1)", addr, ln.Addr())
	}
	h := mcpserve.DropCancelled(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil))
	hs := httpapi.Server(bearer(token, refuseExec(token == "" && !allowExec, h)))
	fmt.Fprintf(s.err, "prose: MCP over streamable HTTP at http://%s\n", ln.Addr())
	return serveUntil(ctx, "mcp", hs, ln)
}

// serveUntil serves hs on ln until ctx ends (then shuts it down, giving
// requests in progress 5 s, and returns nil) or serving fails (exit 1,
// the error named by what).
func serveUntil(ctx context.Context, what string, hs *http.Server, ln net.Listener) error {
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return &exitError{Code: exitFailure, Err: fmt.Errorf("%s: %w", what, err)}
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

// mcpAddr is the address --http names: a bare port or :port binds the
// loopback interface.
func mcpAddr(flag string) (string, error) {
	if !strings.Contains(flag, ":") {
		flag = ":" + flag
	}
	host, port, err := net.SplitHostPort(flag)
	if err != nil {
		return "", usageErrorf("mcp: --http %q: want HOST:PORT or :PORT (%v)", flag, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// loopback reports whether addr listens on this machine only.
func loopback(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readToken reads the bearer token of --token-file ("" without one).
func readToken(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", usageErrorf("mcp: --token-file: %v", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", usageErrorf("mcp: --token-file %s is empty: write the token clients must send into it", path)
	}
	return t, nil
}

// bearer lets through the requests that carry token ("" lets all
// through), and answers 401 to the others.
func bearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpapi.BearerOK(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="prose"`)
			http.Error(w, "prose mcp: missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
