package main

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
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/patterns/bind"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/telemetry"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
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
func runWorld(ctx context.Context, s streams, o *runOptions, w *worldFlags, path string) error {
	if w.format != "text" && w.format != "json" {
		return usageErrorf("run: unknown --format %q (want text or json)", w.format)
	}
	g, diags, err := loadWorld(path)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("run: %w", err)}
	}
	callers, err := worldInputs(g, o.inputs)
	if err != nil {
		return err
	}
	diags = graph.Needed(g.Given(diags, givenInputs(g, o.inputs)))
	fmt.Fprint(s.err, diags.String())
	if diags.HasErrors() {
		return &exitError{code: exitUsage}
	}
	bindings, err := worldBindings(g, o.slots, o)
	if err != nil {
		return err
	}
	events, err := worldEvents(g, w.events, s.in, w.maxEventBytes)
	if err != nil {
		return err
	}
	var ticks []string
	for _, t := range w.ticks {
		n := g.Node(t)
		if n == nil {
			return usageErrorf("--tick %s: no such node%s (nodes: %s)", t, didYouMean(t, nodeIDs(g)), strings.Join(nodeIDs(g), ", "))
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
		return &exitError{code: exitUsage, err: fmt.Errorf("run: %w", err)}
	}
	st.Trusted = trusted
	// A gateway whose render failed keeps its events for the next drain
	// (world_held.go).
	hold, err := openHeld(dir, g)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("run: %w", err)}
	}
	defer hold.close()
	events, redelivered, err := hold.deliver(g, events)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("run: %w", err)}
	}
	if redelivered > 0 {
		fmt.Fprintf(s.err, "prose: %d held event(s) of a gateway whose render failed are delivered again\n", redelivered)
	}
	spans, endSpans, err := o.otel.world(ctx, g.Root, o.baseURL, s.err)
	if err != nil {
		return err
	}
	defer endSpans()
	bindings.spans = spans
	dctx, endDrain := bindings.drainSpan(ctx)
	enc := json.NewEncoder(s.out)
	res, err := reconcile.Drain(dctx, reconcile.Options{
		Graph: g, Store: st, Events: events, Ticks: ticks, MaxParallel: o.maxParallel, SignKey: key, CallerInputs: callers,
		Binding:   bindings.describe,
		Renderer:  bindings.renderer,
		Rendering: bindings.rendering(),
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
	endDrain(res, err)
	if res != nil {
		if herr := hold.settle(g, res, err != nil); herr != nil && err == nil {
			err = herr
		}
		line := fmt.Sprintf("rendered %d, skipped %d, failed %d; %d model requests, %d tokens", res.Rendered, res.Skipped, res.Failed, res.Requests, res.TokensIn+res.TokensOut)
		if w.format == "json" {
			fmt.Fprintln(s.err, "prose: "+line)
		} else {
			fmt.Fprintln(s.out, line)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{code: exitInterrupt, err: fmt.Errorf("interrupted: what was committed stands; prose run again to finish the drain")}
		}
		return &exitError{code: exitFailure, err: fmt.Errorf("run: %w", err)}
	}
	if res.Failed > 0 {
		return &exitError{code: exitFailure}
	}
	return nil
}

// loadWorld wires the world model at path (graph.Load): the syntax
// errors of an Execution that is not ProseScript are a warning of its
// node (lint.NotProse), which is rendered by its binding or the model.
func loadWorld(path string) (*graph.Graph, diag.List, error) {
	g, diags, err := graph.Load(path)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range g.Nodes {
		diags = lint.NotProse(n.Spec, diags)
	}
	return g, diags, nil
}

// executionRuns reports whether n's ### Execution runs on the
// interpreter: it has one, it is ProseScript, and n is a file's own node
// (an inline node is rendered by its binding or the model).
func executionRuns(n *graph.Node) bool {
	ex := n.Spec.Body()
	if ex == nil || n.Inline() {
		return false
	}
	_, errs := syntax.Parse(n.Spec.File, ex.Lines)
	return !errs.HasErrors()
}

// nodeLabel is how a line names the node of id: its id, with its name
// beside it where they differ ("ID (NAME)", as prose graph shows it).
func nodeLabel(g *graph.Graph, id string) string {
	if n := g.Node(id); n != nil && n.ID == id {
		return n.Label()
	}
	return id
}

func nodeIDs(g *graph.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.ID)
		if n.Name != "" && n.Name != n.ID {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}

// worldBinds are the bindings of a drain's nodes.
type worldBinds struct {
	// node is each node's render binding (exec:CMD); "" for a node whose
	// ### Execution runs.
	node map[string]string
	// callees binds the functions a node's Execution calls.
	callees map[string][]bind.Assignment
	// models serves the nodes bound to llm[:MODEL].
	models *run.Models
	// maxTurns bounds the model requests of a model render that calls
	// functions (--max-turns).
	maxTurns int
	// baseURL is --base-url, for the functions such a render calls.
	baseURL string
	// spans, when set, exports each drain as a trace (--otel-file, OTLP).
	spans *telemetry.World
	// callers are the inputs nothing in the project maintains, as --input
	// gives them (serve keeps them for every drain).
	callers map[string]map[string]any
}

// rendering is reconcile's Rendering: each render a span under its
// drain's (nil without spans).
func (b *worldBinds) rendering() func(context.Context, *graph.Node) (context.Context, func(error)) {
	if b.spans == nil {
		return nil
	}
	return func(ctx context.Context, n *graph.Node) (context.Context, func(error)) {
		return b.spans.Render(ctx, n.ID)
	}
}

// drainSpan starts the span of a drain (a no-op without spans); end
// takes the drain's result and error.
func (b *worldBinds) drainSpan(ctx context.Context) (context.Context, func(*reconcile.Result, error)) {
	if b.spans == nil {
		return ctx, func(*reconcile.Result, error) {}
	}
	ctx, end := b.spans.Drain(ctx)
	return ctx, func(res *reconcile.Result, err error) {
		number := 0
		if res != nil {
			number = res.Drain
			if err == nil && res.Failed > 0 {
				err = fmt.Errorf("%d of its renders failed", res.Failed)
			}
		}
		end(number, err)
	}
}

// describe is what renders n, for its contract fingerprint.
func (b *worldBinds) describe(n *graph.Node) string {
	v := b.node[n.ID]
	if v != "" && v != "llm" && !strings.HasPrefix(v, "llm:") {
		return v
	}
	// A model render calls the functions its node names as an
	// Execution does: their bindings are part of what renders it.
	d := "execution"
	if v != "" {
		d = v
	}
	for _, a := range b.callees[n.ID] {
		d += " " + a.Name + "=" + a.Value
	}
	return d
}

func (b *worldBinds) renderer(n *graph.Node) (reconcile.Renderer, error) {
	if v := b.node[n.ID]; v == "llm" || strings.HasPrefix(v, "llm:") {
		c, err := b.models.Client("")
		if err != nil {
			return nil, err
		}
		m := &render.Model{Client: c, Model: strings.TrimPrefix(strings.TrimPrefix(v, "llm"), ":"), Slots: b.callees[n.ID], MaxTurns: b.maxTurns, BaseURL: b.baseURL}
		if b.spans != nil {
			m.Exchanged = b.spans.Chat
		}
		return m, nil
	}
	if v := b.node[n.ID]; v != "" {
		return render.Parse(v)
	}
	ex := &render.Execution{Slots: b.callees[n.ID]}
	if b.spans != nil {
		ex.Telemetry = b.spans.Tracer()
	}
	return ex, nil
}

// modelConfigured reports whether a model is named (--model or
// PROSE_MODEL).
func modelConfigured(o *runOptions) bool {
	return o.model != "" || os.Getenv("PROSE_MODEL") != ""
}

// worldBindings reads --slot NODE=exec:CMD (or llm[:MODEL]) and --slot NODE.CALLEE=BINDING
// (a function its Execution calls). Every node needs a binding or a
// runnable ### Execution; --slot '*=exec:CMD' binds every node not bound
// by name that has no Execution, or one that is not ProseScript (the
// program finds the node's id in its input's "node"), and with a model
// configured the rest are rendered by it.
func worldBindings(g *graph.Graph, slots []string, o *runOptions) (*worldBinds, error) {
	b := &worldBinds{node: map[string]string{}, callees: map[string][]bind.Assignment{}, maxTurns: o.maxTurns, baseURL: o.baseURL}
	star := ""
	for _, sl := range slots {
		name, val, ok := strings.Cut(sl, "=")
		if !ok || name == "" {
			return nil, usageErrorf("--slot %q: want NODE=exec:COMMAND", sl)
		}
		if name == "*" {
			star = val
			continue
		}
		n := g.Node(name)
		if n == nil {
			if id, callee, ok := strings.Cut(name, "."); ok && g.Node(id) != nil && callee != "" {
				id = g.Node(id).ID
				b.callees[id] = append(b.callees[id], bind.Assignment{Name: callee, Value: val})
				continue
			}
			return nil, usageErrorf("--slot %s: no such node%s (nodes: %s)", name, didYouMean(name, nodeIDs(g)), strings.Join(nodeIDs(g), ", "))
		}
		if _, err := render.Parse(val); err != nil && val != "llm" && !strings.HasPrefix(val, "llm:") {
			return nil, usageErrorf("--slot %s: %v, or llm[:MODEL]", name, err)
		}
		b.node[n.ID] = val
	}
	models, err := run.NewModels(os.Getenv, o.model, o.baseURL)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	b.models = models
	var missing []string
	for _, n := range g.Nodes {
		if b.node[n.ID] != "" || executionRuns(n) {
			continue
		}
		if star != "" {
			b.node[n.ID] = star
			continue
		}
		if _, err := models.Client(""); err == nil && modelConfigured(o) {
			b.node[n.ID] = "llm"
			continue
		}
		missing = append(missing, n.ID)
	}
	if len(missing) == 0 && !(modelConfigured(o) && modelOK(models)) {
		missing = unboundCallees(g, b)
		if len(missing) > 0 {
			var hint []string
			for _, m := range missing {
				hint = append(hint, "--slot "+m+"=exec:COMMAND")
			}
			return nil, usageErrorf("no model is configured, and these functions that an Execution calls are rendered by one: %s; configure a model (--model or PROSE_MODEL, see Models in the README), or bind each to a program: %s",
				strings.Join(missing, ", "), strings.Join(hint, " "))
		}
	}
	if len(missing) > 0 {
		return nil, usageErrorf("no render bound for %s and no model configured: configure one (--model or PROSE_MODEL, see Models in the README), or bind each node with --slot NODE=exec:COMMAND (the program reads {\"node\",\"name\",\"inputs\",\"prior\",\"events\",\"diff\",\"absent\"} on stdin and prints the new truth)", strings.Join(missing, ", "))
	}
	return b, nil
}

func modelOK(m *run.Models) bool {
	_, err := m.Client("")
	return err == nil
}

// unboundCallees lists, as NODE.CALLEE, the functions the Executions of
// g's nodes call, directly or from within the functions they call, that a
// model would render (no runnable Execution of their own) and no --slot
// NODE.CALLEE binds: a drain with no model fails on them, so it is
// refused before it starts, with the binding a drain accepts. A run binds
// a callee by its name wherever in the node's calls it is called, so a
// function called inside another is NODE.INNER too, never NODE.FN.INNER.
func unboundCallees(g *graph.Graph, b *worldBinds) []string {
	var out []string
	for _, n := range g.Nodes {
		if b.node[n.ID] != "" || !executionRuns(n) {
			continue
		}
		bound := map[string]bool{}
		for _, a := range b.callees[n.ID] {
			bound[a.Name] = true
		}
		listed := map[string]bool{}
		visited := map[string]bool{} // file and node: a sibling loads anew each time
		var walk func(sp *spec.Spec)
		walk = func(sp *spec.Spec) {
			key := sp.File.Name + "\x00" + sp.Name
			if visited[key] {
				return
			}
			visited[key] = true
			for _, name := range callees(sp) {
				if name == sp.Name || bound[name] || listed[name] {
					continue
				}
				callee := calleeSpec(sp, name)
				switch {
				case callee == nil:
				case modelRenderedSpec(callee):
					listed[name] = true
					out = append(out, n.ID+"."+name)
				case callee.Kind == spec.KindFunction:
					walk(callee)
				}
			}
		}
		walk(n.Spec)
	}
	return out
}

// calleeSpec is the function or node a call of name made in sp reaches
// (an inline node or a sibling file), nil for anything else.
func calleeSpec(sp *spec.Spec, name string) *spec.Spec {
	c := sp.ResolveCall(name, nil, &spec.Finder{})
	if c == nil {
		return nil
	}
	switch c.Kind {
	case spec.CalleeNode:
		return c.Node
	case spec.CalleeSibling:
		s, _, err := spec.Load(c.Path)
		if err != nil {
			return nil
		}
		return s
	}
	return nil
}

// modelRenderedSpec reports whether a callee is a function with no
// runnable Execution: a model renders it.
func modelRenderedSpec(sp *spec.Spec) bool {
	return sp.Kind == spec.KindFunction && sp.Body() == nil
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
// never past max.
func worldEvents(g *graph.Graph, flags []string, stdin io.Reader, max int64) (map[string][]any, error) {
	out := map[string][]any{}
	for _, f := range flags {
		name, val, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, usageErrorf("--event %q: want GATEWAY=@FILE", f)
		}
		n := g.Node(name)
		if n == nil || n.Kind != spec.KindGateway {
			var gws []string
			for _, x := range g.Nodes {
				if x.Kind == spec.KindGateway {
					gws = append(gws, x.ID)
				}
			}
			return nil, usageErrorf("--event %s: no gateway of that id%s (gateways: %s)", name, didYouMean(name, gws), strings.Join(gws, ", "))
		}
		var raw []byte
		var err error
		switch {
		case val == "-":
			raw, err = readAtMost(stdin, max)
		case strings.HasPrefix(val, "@"):
			var f *os.File
			if f, err = os.Open(val[1:]); err == nil {
				raw, err = readAtMost(f, max)
				f.Close()
			}
		default:
			raw = []byte(val)
			if int64(len(raw)) > max {
				err = errTooLong
			}
		}
		if errors.Is(err, errTooLong) {
			return nil, usageErrorf("--event %s: longer than %d bytes (--max-event-bytes)", name, max)
		}
		if err != nil {
			return nil, usageErrorf("--event %s: %v", name, err)
		}
		v, err := canon.Decode(raw)
		if err != nil {
			return nil, usageErrorf("--event %s: not a JSON event: %v", name, err)
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
// drain's nodes (the Requires items no rule wires); VALUE is JSON when it
// parses, else text.
func worldInputs(g *graph.Graph, flags []string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
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
		var v any = val
		if x, err := canon.Decode([]byte(val)); err == nil {
			v = x
		}
		if out[id] == nil {
			out[id] = map[string]any{}
		}
		out[id][in] = v
	}
	return out, nil
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
