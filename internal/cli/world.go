package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// worldFlags are the flags `prose run` takes for a drain of a world
// model.
type worldFlags struct {
	state   string
	events  []string
	ticks   []string
	signKey string
	format  string
	// trustedKey, wait and maxEventBytes: see lockState, trustedKey and
	// worldEvents.
	trustedKey    string
	wait          bool
	maxEventBytes int64
}

func addWorldFlags(cmd *cobra.Command) *worldFlags {
	w := &worldFlags{}
	fl := cmd.Flags()
	fl.StringVar(&w.state, "state", "", "world model state `DIR` (default PATH/.prose/world) for a drain of a directory")
	fl.StringArrayVar(&w.events, "event", nil, "deliver `GATEWAY=@FILE` (a JSON event; - for stdin) to a gateway before the drain; repeatable")
	fl.StringArrayVar(&w.ticks, "tick", nil, "wake `NODE` by itself (a self recheck); repeatable")
	fl.StringVar(&w.signKey, "sign-key", "", "sign every receipt with the ed25519 private key in `FILE` (PEM PKCS #8, or a hex seed)")
	fl.StringVar(&w.format, "format", "text", "for a drain: text, or json (one receipt per line)")
	fl.StringVar(&w.trustedKey, "trusted-key", "", "for a drain: refuse receipts not signed by the ed25519 public key in `FILE` (default $"+trustedKeyEnv+")")
	fl.BoolVar(&w.wait, "wait", false, "for a drain: wait while another process writes the state directory, instead of refusing")
	fl.Int64Var(&w.maxEventBytes, "max-event-bytes", httpapi.DefaultMaxEventBytes, "refuse an --event longer than `N` bytes, as prose serve does")
	return w
}

// applies reports whether `prose run PATH` is a drain: PATH is a
// directory, or a responsibility or gateway given a world flag (--state,
// --event, --tick). A responsibility file alone still runs once, like a
// function.
func (w *worldFlags) applies(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.IsDir() {
		return true
	}
	return w.state != "" || len(w.events) > 0 || len(w.ticks) > 0
}

// runWorld is `prose run PATH` as a drain of the world model at PATH.
// noNodes refuses a directory that holds no responsibility or gateway
// (decided: exit 1, as lint of paths that hold no spec). A drain or a
// graph of it would succeed doing nothing, and a mistyped directory, or
// nodes whose kind is left out, would pass for a quiet world model.
func noNodes(cmd, path string, g *graph.Graph, what string) error {
	if len(g.Nodes) > 0 {
		return nil
	}
	return &exitError{Code: exitFailure, Err: fmt.Errorf("%s: %s holds no responsibility or gateway (a spec file whose front matter says kind: responsibility or kind: gateway), so there is nothing to %s; a function or pattern runs with prose run FILE", cmd, path, what)}
}

func runWorld(ctx context.Context, s streams, o *runOptions, w *worldFlags, path string) error {
	if w.format != "text" && w.format != "json" {
		return usageErrorf("run: unknown --format %q (want text or json)", w.format)
	}
	if o.maxParallel < 1 {
		return usageErrorf("--max-parallel must be at least 1, got %d", o.maxParallel)
	}
	if w.maxEventBytes < 1 {
		return usageErrorf("--max-event-bytes must be at least 1, got %d", w.maxEventBytes)
	}
	g, diags, err := loadWorld(path)
	if err != nil {
		return &exitError{Code: exitUsage, Err: fmt.Errorf("run: %w", err)}
	}
	callers, err := worldInputs(g, o.inputs)
	if err != nil {
		return err
	}
	diags = graph.Needed(g.Given(diags, givenInputs(g, o.inputs)))
	fmt.Fprint(s.err, diags.String())
	if diags.HasErrors() {
		return &exitError{Code: exitUsage}
	}
	if err := noNodes("run", path, g, "drain"); err != nil {
		return err
	}
	prepared, err := worldDrain(g, o.slots, o)
	if err != nil {
		return err
	}
	for _, w := range prepared.Unchecked() {
		fmt.Fprintln(s.err, w)
	}
	events, err := worldEvents(ctx, g, w.events, s.in, w.maxEventBytes)
	if err != nil {
		return err
	}
	var ticks []string
	for _, t := range w.ticks {
		n := g.Node(t)
		if n == nil {
			return usageErrorf("--tick %s: no such node%s (nodes: %s)", t, didYouMean(t, g.Names()), strings.Join(g.Names(), ", "))
		}
		ticks = append(ticks, n.ID)
	}
	var key ed25519.PrivateKey
	if w.signKey != "" {
		if key, err = readSignKey(w.signKey); err != nil {
			return usageErrorf("--sign-key: %v", err)
		}
	}
	dir := w.state
	if dir == "" {
		dir = filepath.Join(g.Root, ".prose", "world")
	}
	trusted, err := trustedKey(w.trustedKey)
	if err != nil {
		return err
	}
	release, err := lockState(ctx, dir, "prose run", w.wait)
	if err != nil {
		return err
	}
	defer release()
	st, err := store.Open(dir)
	if err != nil {
		return &exitError{Code: exitUsage, Err: fmt.Errorf("run: %w", err)}
	}
	st.Trusted = trusted
	// A gateway whose render failed keeps its events for the next drain
	// (world_held.go).
	hold, err := openHeld(dir, g)
	if err != nil {
		return &exitError{Code: exitUsage, Err: fmt.Errorf("run: %w", err)}
	}
	defer hold.close()
	hold.gone(s.err, g)
	events, redelivered, err := hold.deliver(g, events)
	if err != nil {
		return &exitError{Code: exitUsage, Err: fmt.Errorf("run: %w", err)}
	}
	if redelivered > 0 {
		fmt.Fprintf(s.err, "prose: %d held event(s) of a gateway whose render failed are delivered again\n", redelivered)
	}
	spans, endSpans, err := o.otel.world(ctx, g.Root, o.baseURL, s.err)
	if err != nil {
		return err
	}
	defer endSpans()
	prepared.Spans, prepared.State = spans, st.Dir
	enc := json.NewEncoder(s.out)
	res, err := prepared.Run(ctx, drain.Input{
		Store: st, Events: events, Ticks: ticks, MaxParallel: o.maxParallel, SignKey: key, CallerInputs: callers,
		Committed: func(r *receipt.Receipt) {
			switch {
			case w.format == "json":
				enc.Encode(r)
			case r.Status == receipt.Rendered:
				moved := "nothing moved"
				if len(r.Diff.Moved) > 0 {
					moved = "moved " + strings.Join(r.Diff.Moved, ", ")
				}
				fmt.Fprintf(s.out, "rendered %s (%s; %s)\n", nodeLabel(g, r.Node), r.Wake.Source, moved)
			case r.Status == receipt.Failed:
				fmt.Fprintf(s.out, "failed %s: %s\n", nodeLabel(g, r.Node), r.Reason)
			}
		},
	})
	if res != nil {
		if herr := hold.settle(g, res, err != nil); herr != nil && err == nil {
			err = herr
		}
		hold.blocked(s.err, g, res)
		line := fmt.Sprintf("rendered %d, skipped %d, failed %d; %d model requests, %d tokens", res.Rendered, res.Skipped, res.Failed, res.Requests, res.TokensIn+res.TokensOut)
		if w.format == "json" {
			fmt.Fprintln(s.err, "prose: "+line)
		} else {
			fmt.Fprintln(s.out, line)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{Code: exitInterrupt, Err: fmt.Errorf("interrupted: what was committed stands; prose run again to finish the drain")}
		}
		return &exitError{Code: exitFailure, Err: fmt.Errorf("run: %w", err)}
	}
	if len(res.Unwoken) > 0 {
		// Decided: a --tick that woke nothing was asked for and not done.
		var why []string
		for _, t := range ticks {
			if w, ok := res.Unwoken[t]; ok {
				why = append(why, "--tick "+t+": "+w)
			}
		}
		return &exitError{Code: exitFailure, Err: errors.New(strings.Join(why, "\n"))}
	}
	if res.Failed > 0 {
		return &exitError{Code: exitFailure}
	}
	return nil
}

// loadWorld wires the world model at path (graph.Load): the syntax
// errors of an Execution that is not ProseScript are a warning of its
// node (lint.NotProse), which is rendered by its binding or the model.
func loadWorld(path string) (*graph.Graph, diag.List, error) {
	return loadWorldWith(path, nil)
}

// loadWorldWith is loadWorld reading the spec files through specs (nil:
// a new spec graph).
func loadWorldWith(path string, specs *specgraph.Graph) (*graph.Graph, diag.List, error) {
	g, diags, err := graph.LoadWith(path, specs)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range g.Nodes {
		diags = lint.NotProse(n.Spec, diags)
	}
	return g, diags, nil
}

// nodeLabel is how a line names the node of id: its id, with its name
// beside it where they differ ("ID (NAME)", as prose graph shows it).
func nodeLabel(g *graph.Graph, id string) string {
	if n := g.Node(id); n != nil && n.ID == id {
		return n.Label()
	}
	return id
}

// worldDrain prepares the drain of g (package drain) from --slot
// NODE=exec:CMD (or llm[:MODEL]) and --slot NODE.CALLEE=BINDING (a
// function its Execution calls). Every node needs a binding or a
// runnable ### Execution; --slot '*=exec:CMD' binds every node not bound
// by name that has no Execution, or one that is not ProseScript (the
// program finds the node's id in its input's "node"), and with a model
// configured the rest are rendered by it.
func worldDrain(g *graph.Graph, slots []string, o *runOptions) (*drain.Prepared, error) {
	as, err := bind.ParseAssignments("--slot", slots)
	if err != nil {
		return nil, &exitError{Code: exitUsage, Err: err}
	}
	b, err := drain.ParseBindings(g, "--slot", as)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	models, err := run.NewModels(os.Getenv, o.model, o.baseURL)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if o.renderTimeout < 0 {
		return nil, usageErrorf("--render-timeout must be 0 (no bound) or more, got %s", o.renderTimeout)
	}
	p, err := drain.Prepare(g, b, drain.Config{Models: models, MaxTurns: o.maxTurns, BaseURL: o.baseURL,
		Model: o.model, MCPConfig: o.mcpConfig, Limits: run.Limits{MaxParallel: o.maxParallel, MaxSteps: o.maxSteps, MaxValueBytes: o.maxValueBytes},
		RenderTimeout: renderBound(o.renderTimeout)})
	var unbound *drain.UnboundError
	var callees *drain.UnboundCalleesError
	switch {
	case errors.As(err, &unbound):
		return nil, usageErrorf("%v: configure one (--model or PROSE_MODEL, see Models in the README), or bind each node with --slot NODE=exec:COMMAND (the program reads {\"node\",\"name\",\"inputs\",\"prior\",\"events\",\"diff\",\"absent\"} on stdin and prints the new truth)", err)
	case errors.As(err, &callees):
		var hint []string
		for _, m := range callees.Callees {
			hint = append(hint, "--slot "+m+"=exec:COMMAND")
		}
		return nil, usageErrorf("%v; configure a model (--model or PROSE_MODEL, see Models in the README), or bind each to a program: %s", err, strings.Join(hint, " "))
	case err != nil:
		return nil, usageErrorf("%v", err)
	}
	return p, nil
}

// addRenderTimeoutFlag adds --render-timeout to cmd (what says the
// commands it applies to: "for a drain: ").
func addRenderTimeoutFlag(cmd *cobra.Command, d *time.Duration, what string) {
	cmd.Flags().DurationVar(d, "render-timeout", reconcile.DefaultRenderTimeout,
		what+"fail a node's render that has not finished after `D` (500ms, 30s, 10m), stopping its program; 0: no bound")
}

// renderBound is drain.Config.RenderTimeout for --render-timeout d
// (given as 0 for no bound, which the library reads as its default).
func renderBound(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func didYouMean(name string, cands []string) string {
	if best := graph.Nearest(name, cands); best != "" {
		return "; did you mean " + best + "?"
	}
	return ""
}

// worldEvents reads --event GATEWAY=@FILE (or - for stdin, or a JSON
// text), each at most max bytes (as prose serve's --max-event-bytes). A
// file named here is read as given (a pipe of the shell's <(...) too),
// never past max. A read that waits ends when ctx is done.
func worldEvents(ctx context.Context, g *graph.Graph, flags []string, stdin io.Reader, max int64) (map[string][]any, error) {
	out := map[string][]any{}
	for _, f := range flags {
		name, val, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, usageErrorf("--event %q: want GATEWAY=@FILE", f)
		}
		n := g.Node(name)
		if n != nil && n.Kind != spec.KindGateway {
			// A responsibility, external-driven or not, takes no events
			// (upstream's gateway is that node's sugar; here only the
			// gateway kind receives): say so rather than "no gateway".
			return nil, usageErrorf("--event %s: %s is a %s, and events are delivered to gateways only; make it kind: gateway to have it take them", name, n.Label(), n.Kind)
		}
		if n == nil {
			var gws []string
			for _, x := range g.Nodes {
				if x.Kind == spec.KindGateway {
					gws = append(gws, x.ID)
				}
			}
			list := "gateways: " + strings.Join(gws, ", ")
			if len(gws) == 0 {
				list = "the project has no gateway"
			}
			return nil, usageErrorf("--event %s: no gateway of that id%s (%s)", name, didYouMean(name, gws), list)
		}
		var raw []byte
		var err error
		switch {
		case val == "-":
			raw, err = untilDone(ctx, func() ([]byte, error) { return readAtMost(stdin, max) })
		case strings.HasPrefix(val, "@"):
			raw, err = untilDone(ctx, func() ([]byte, error) {
				f, err := os.Open(val[1:])
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return readAtMost(f, max)
			})
		default:
			raw = []byte(val)
			if int64(len(raw)) > max {
				err = errTooLong
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err() // interrupted
		}
		if errors.Is(err, errTooLong) {
			return nil, usageErrorf("--event %s: longer than %d bytes (--max-event-bytes)", name, max)
		}
		if err != nil {
			return nil, usageErrorf("--event %s: %v", name, err)
		}
		v, err := canon.DecodeEvent(raw)
		if err != nil {
			return nil, usageErrorf("--event %s: not a JSON event: %v", name, err)
		}
		if err := n.CheckEvent(v); err != nil {
			return nil, usageErrorf("--event %s: %v", name, err)
		}
		out[n.ID] = append(out[n.ID], v)
	}
	return out, nil
}

// givenInputs reports which NODE.INPUT the --input flags give (NODE
// by id or name).
func givenInputs(g *graph.Graph, flags []string) func(node, input string) bool {
	return func(node, input string) bool {
		for _, f := range flags {
			name, _, _ := strings.Cut(f, "=")
			id, in, _ := strings.Cut(name, ".")
			if n := g.Node(id); n != nil && n.ID == node && in == input {
				return true
			}
		}
		return false
	}
}

var errTooLong = errors.New("too long")

// readAtMost reads r to its end, or errTooLong past max bytes.
func readAtMost(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(b)) > max {
		err = errTooLong
	}
	return b, err
}

// worldInputs reads --input NODE.NAME=VALUE for the caller inputs of a
// drain's nodes (the Requires items no rule wires). VALUE is typed by the
// item's declared type as a run's --input is (`- \`funding\` (integer)`:
// "abc" is refused before the drain), and is JSON when it parses, else
// text, where none is declared. A name is given once, or once per element
// of a list-typed input: a second value never silently replaces the first.
func worldInputs(g *graph.Graph, flags []string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	given := map[string][]string{}
	for _, f := range flags {
		name, val, ok := strings.Cut(f, "=")
		id, in, dotted := strings.Cut(name, ".")
		n := g.Node(id)
		if n != nil {
			id = n.ID
		}
		if !ok || !dotted || n == nil || !slices.Contains(n.CallerInputs, in) {
			var all []string
			for _, x := range g.Nodes {
				for _, c := range x.CallerInputs {
					all = append(all, x.ID+"."+c)
				}
			}
			if len(all) == 0 {
				return nil, usageErrorf("--input %s: no node of this graph takes a caller input (every Requires item is wired)", name)
			}
			return nil, usageErrorf("--input %s: want NODE.INPUT=VALUE, one of the caller inputs %s%s", name, strings.Join(all, ", "), didYouMean(name, all))
		}
		key := id + "." + in
		given[key] = append(given[key], val)
		v, err := callerValue(n, in, given[key])
		if err != nil {
			return nil, usageErrorf("--input %s: %v", name, err)
		}
		if out[id] == nil {
			out[id] = map[string]any{}
		}
		out[id][in] = v
	}
	return out, nil
}

// callerValue types the values given for node n's caller input in.
func callerValue(n *graph.Node, in string, vals []string) (any, error) {
	typ := ""
	if n.Spec != nil {
		for _, x := range n.Spec.Inputs {
			if x.Name == in && x.Type != "run" && x.Type != "run[]" {
				typ = x.Type
			}
		}
	}
	if typ == "" && len(vals) == 1 {
		if x, err := canon.Decode([]byte(vals[0])); err == nil {
			return x, nil
		}
		return vals[0], nil
	}
	v, err := bind.ParseValues(typ, vals)
	if err != nil {
		return nil, err
	}
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return nil, err
	}
	return canon.Decode(raw)
}

// readSignKey reads an ed25519 private key: PEM PKCS #8, or a 32-byte
// seed in hex.
func readSignKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if blk, _ := pem.Decode(b); blk != nil {
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, err
		}
		ek, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, errors.New("not an ed25519 key")
		}
		return ek, nil
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, errors.New("want a PEM PKCS #8 ed25519 key or a 64-digit hex seed")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
