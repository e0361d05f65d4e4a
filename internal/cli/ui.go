package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/ui"
	"github.com/proselang/prose/world/graph"
)

// uiOptions are the flags and argument of `prose ui`.
type uiOptions struct {
	path, addr, tokenFile, runDir, state string
	trustedKey                           string
	open                                 bool
	poll                                 time.Duration
}

func newUICmd(s streams) *cobra.Command {
	o := &uiOptions{}
	cmd := &cobra.Command{
		Use:   "ui [PATH]",
		Short: "See and steer runs and the world model in a browser",
		Long: `ui serves a web page of the project at PATH (default .): the journaled
runs (--run-dir, default PATH/.prose/runs) with their calls, judgments and
gates, the world model of its state directory (--state, default
PATH/.prose/world) and serve's queue. The page updates live as runs and
drains write; it reads only what prose writes, so a state directory copied
from elsewhere shows as well. A gate answered on the page is answered as
prose answer answers it, and its resume runs as prose resume.

It listens on 127.0.0.1:7078 unless --addr says otherwise and prints the
page's URL; an address that is not loopback needs --token-file, and with a
token every page and action wants it (open the URL with ?token=TOKEN once;
the browser keeps it in a cookie). prose serve mounts the same page at
/ui. SIGTERM or Ctrl-C stops it.`,
		Example: `  prose ui                 # the runs under ./.prose/runs, at http://127.0.0.1:7078/ui/
  prose ui examples/world --open
  prose ui --addr 0.0.0.0:7078 --token-file ui.token`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = "."
			if len(args) == 1 {
				o.path = args[0]
			}
			return runUI(cmd.Context(), s, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.addr, "addr", "127.0.0.1:7078", "listen on `ADDR` (HOST:PORT; port 0 picks one)")
	fl.StringVar(&o.tokenFile, "token-file", "", "require the token in `FILE` on every page and action (needed off loopback)")
	fl.StringVar(&o.runDir, "run-dir", "", "directory `DIR` holding run journals (default PATH/.prose/runs)")
	fl.StringVar(&o.state, "state", "", "world model state `DIR` (default PATH/.prose/world)")
	fl.StringVar(&o.trustedKey, "trusted-key", "", "the world pages accept only receipts signed by the public key in `FILE` (default $"+trustedKeyEnv+")")
	fl.BoolVar(&o.open, "open", false, "open the page in the default browser")
	fl.DurationVar(&o.poll, "poll", ui.DefaultPoll, "look for changed journals and state files every `D`")
	return cmd
}

func runUI(ctx context.Context, s streams, o *uiOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	token, err := readToken(o.tokenFile)
	if err != nil {
		return err
	}
	if hostOf(o.addr) == "" && token == "" {
		return usageErrorf("ui: --addr %s listens on every interface: give --token-file FILE (or bind 127.0.0.1)", o.addr)
	}
	srv, err := newUIServer(o, token)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, loop, err := httpapi.ListenLoopback(o.addr)
	if err != nil {
		return usageErrorf("ui: --addr: %v", err)
	}
	if token == "" && !loop {
		ln.Close()
		return usageErrorf("ui: --addr %s bound %s, which is reachable from other machines: give --token-file FILE (or bind 127.0.0.1)", o.addr, ln.Addr())
	}
	hs := httpapi.Server(srv.Handler())
	hs.RegisterOnShutdown(func() { srv.Close() })
	url := fmt.Sprintf("http://%s/ui/", ln.Addr())
	if token != "" {
		fmt.Fprintf(s.err, "prose ui: %s (open it once with ?token=TOKEN, the token in %s)\n", url, o.tokenFile)
	} else {
		fmt.Fprintf(s.err, "prose ui: %s\n", url)
	}
	if o.open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(s.err, "prose ui: --open: %v (open the URL by hand)\n", err)
		}
	}
	return serveUntil(ctx, "ui", hs, ln)
}

// newUIServer makes the page of o.path with its run and state
// directories.
func newUIServer(o *uiOptions, token string) (*ui.Server, error) {
	if o.runDir == "" {
		o.runDir = filepath.Join(o.path, run.DefaultRunDir)
	}
	trusted, err := trustedKey(o.trustedKey)
	if err != nil {
		return nil, err
	}
	uo := ui.Options{RunDir: o.runDir, StateDir: o.state, Token: token, Poll: o.poll, Rerun: uiRerun(), Trusted: trusted}
	uo.Graph, uo.GraphErr = uiGraph(o.path)
	if uo.StateDir == "" {
		uo.StateDir = filepath.Join(o.path, ".prose", "world")
	}
	srv, err := ui.New(uo)
	if err != nil {
		return nil, &exitError{Code: exitFailure, Err: err}
	}
	return srv, nil
}

// uiGraph loads PATH's world model for the world pages: nil and no error
// when PATH holds none.
func uiGraph(path string) (*graph.Graph, error) {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return nil, nil
	}
	g, diags, err := loadWorld(path)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return g, fmt.Errorf("%s", diags.String())
	}
	return g, nil
}

// uiRerun is what a resume from the page runs with: what prose resume
// gives run.Resume.
func uiRerun() run.Options {
	return run.Options{SyncEvery: 100 * time.Millisecond, ContractCheck: lint.Contract}
}

// uiHandler mounts the page of serve's world at /ui beside serve's own
// endpoints (the page checks serve's token itself, in a cookie a browser
// can carry); close stops it.
func uiHandler(api http.Handler, g *graph.Graph, b serveBackend, token string) (h http.Handler, close func(), err error) {
	srv, err := ui.New(ui.Options{RunDir: filepath.Join(g.Root, run.DefaultRunDir), StateDir: b.Store().Dir,
		Graph: g, Backend: b, Token: token, Rerun: uiRerun(), Started: time.Now(), Trusted: b.Store().Trusted})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/ui/", srv.Handler())
	mux.Handle("/ui", srv.Handler())
	mux.Handle("/", api)
	return mux, func() { srv.Close() }, nil
}

// openBrowser asks the desktop to open url.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
