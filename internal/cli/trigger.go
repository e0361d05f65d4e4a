package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/serve"
)

// triggerOptions are the flags and argument of `prose trigger`.
type triggerOptions struct {
	node, data, server, tokenFile string
	project, state                string
	slots                         []string
	wait                          bool
	renderTimeout                 time.Duration
}

func newTriggerCmd(s streams) *cobra.Command {
	o := &triggerOptions{}
	cmd := &cobra.Command{
		Use:   "trigger ID",
		Short: "Send an event to a gateway, or wake a node, of a served or local world model",
		Long: `trigger sends --data (a JSON event; @FILE reads a file, - stdin) to the
gateway ID, or with no --data wakes the node ID by hand.

With --server URL it posts to a running prose serve and prints its answer
({"drain": N, "duplicate": false}); --wait then waits for that drain's
outcome. Without --server it queues the trigger in the state directory of
--project (default .) and drains it there, as prose serve would, printing
the drain's outcome.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.node = args[0]
			return runTrigger(cmd.Context(), s, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.data, "data", "", "the event: `JSON`, @FILE or - (stdin); none wakes the node")
	fl.StringVar(&o.server, "server", "", "post to the prose serve at `URL` (http://127.0.0.1:7077)")
	fl.StringVar(&o.tokenFile, "token-file", "", "send the bearer token in `FILE`")
	fl.BoolVar(&o.wait, "wait", false, "with --server: wait for the drain's outcome and print it; without: wait while another process writes the state directory")
	fl.StringVar(&o.project, "project", ".", "without --server: the project `PATH` to drain")
	fl.StringVar(&o.state, "state", "", "without --server: world model state `DIR` (default PATH/.prose/world)")
	fl.StringArrayVar(&o.slots, "slot", nil, "without --server: bind `NODE=exec:COMMAND`, as for prose serve")
	addRenderTimeoutFlag(cmd, &o.renderTimeout, "without --server: ")
	return cmd
}

// readData reads --data: JSON text, @FILE or - (stdin), at most
// maxInputFile bytes (the server refuses what is longer than its own
// --max-event-bytes); a read that waits ends when ctx is done.
func readData(ctx context.Context, data string, stdin io.Reader) ([]byte, error) {
	var from func() (io.ReadCloser, error)
	switch {
	case data == "":
		return nil, nil
	case data == "-":
		from = func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }
	case strings.HasPrefix(data, "@"):
		from = func() (io.ReadCloser, error) { return os.Open(data[1:]) }
	default:
		return []byte(data), nil
	}
	b, err := untilDone(ctx, func() ([]byte, error) {
		r, err := from()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return readAtMost(r, maxInputFile)
	})
	if errors.Is(err, errTooLong) {
		return nil, fmt.Errorf("longer than %d MiB", maxInputFile>>20)
	}
	return b, err
}

func runTrigger(ctx context.Context, s streams, o *triggerOptions) error {
	event, err := readData(ctx, o.data, s.in)
	if ctx.Err() != nil {
		return ctx.Err() // interrupted
	}
	if err != nil {
		return usageErrorf("trigger: --data: %v", err)
	}
	if o.data != "" && len(bytes.TrimSpace(event)) == 0 {
		// Decided: refused, not sent as a wake (an empty body is one over
		// HTTP): the event meant was not there.
		return usageErrorf("trigger: --data %s gives no event (it is empty): give a JSON event, or leave --data out to wake the node by hand", o.data)
	}
	if o.server != "" {
		return postTrigger(ctx, s, o, event)
	}
	g, bindings, st, release, err := openWorld(ctx, s, o.project, o.state, o.slots, &runOptions{renderTimeout: o.renderTimeout}, "prose trigger", o.wait)
	if err != nil {
		return err
	}
	defer release()
	if st.Trusted, err = trustedKey(""); err != nil {
		return err
	}
	srv, err := serveServer(g, bindings, st, 4, nil, nil, nil)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %w", err)}
	}
	defer srv.Close()
	drain, _, err := srv.Trigger(o.node, event)
	if err != nil {
		return &exitError{Code: exitUsage, Err: fmt.Errorf("trigger: %w", err)}
	}
	if err := srv.DrainQueued(ctx); err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %w", err)}
	}
	state, out := srv.Drain(drain)
	if state != "done" {
		return &exitError{Code: exitInterrupt, Err: fmt.Errorf("trigger: interrupted; the trigger stays queued (drain %d)", drain)}
	}
	enc := json.NewEncoder(s.out)
	enc.SetIndent("", "  ")
	enc.Encode(out)
	return triggerOutcome(out)
}

// triggerOutcome is the exit of a trigger whose drain answered out: a
// failure when a render failed, the drain did, or the wake asked for did
// nothing (said on stderr, through the exit error).
func triggerOutcome(out *serve.Outcome) error {
	if len(out.Unwoken) > 0 {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: the wake did nothing: %s", unwokenText(out.Unwoken))}
	}
	if out.Failed > 0 || out.Error != "" {
		return &exitError{Code: exitFailure}
	}
	return nil
}

func postTrigger(ctx context.Context, s streams, o *triggerOptions, event []byte) error {
	var token string
	if o.tokenFile != "" {
		t, err := readTokenFile(o.tokenFile)
		if err != nil {
			return usageErrorf("trigger: --token-file %s: %v", o.tokenFile, err)
		}
		token = t
	}
	if u, err := url.Parse(o.server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf("trigger: --server %q: want the URL of a prose serve, such as http://127.0.0.1:7077", o.server)
	}
	base := strings.TrimRight(o.server, "/")
	do := func(method, url string, body []byte) ([]byte, int, error) {
		req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
		if err != nil {
			return nil, 0, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if len(body) > 0 {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return b, resp.StatusCode, err
	}
	b, code, err := do("POST", base+"/trigger/"+o.node, event)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %w", err)}
	}
	if code != http.StatusAccepted {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %s answered %d: %s", base, code, strings.TrimSpace(string(b)))}
	}
	if !o.wait {
		s.out.Write(b)
		return nil
	}
	var ack struct{ Drain int }
	if err := json.Unmarshal(b, &ack); err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %s answered %s", base, b)}
	}
	for {
		b, code, err := do("GET", fmt.Sprintf("%s/drains/%d", base, ack.Drain), nil)
		if err != nil {
			return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %w", err)}
		}
		var st struct {
			State   string
			Outcome *serve.Outcome
		}
		ok := code == http.StatusOK && json.Unmarshal(b, &st) == nil
		switch {
		case ok && st.State == "done" && st.Outcome != nil:
			s.out.Write(b)
			return triggerOutcome(st.Outcome)
		case !ok || st.State != "queued" && st.State != "running":
			// Decided: only a drain the server says is queued or running
			// is waited for; any other answer would be polled for ever.
			return &exitError{Code: exitFailure, Err: fmt.Errorf("trigger: %s answered %d about drain %d (acknowledged): %s", base, code, ack.Drain, strings.TrimSpace(string(b)))}
		}
		select {
		case <-ctx.Done():
			return &exitError{Code: exitInterrupt, Err: fmt.Errorf("trigger: stopped waiting; drain %d stays queued on the server", ack.Drain)}
		case <-time.After(20 * time.Millisecond):
		}
	}
}
