package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/telemetry"
	"github.com/proselang/prose/world/store"
)

// Drain is what the renders of one drain share, and what makes a
// node's render the run `prose run FILE` of that node is: the drain's
// one spec graph (every spec file a render reaches is read once per
// drain), the settings `prose run` takes (model, base URL, --max-turns,
// the MCP configuration, limits), the environment the model
// configuration is read from, where each render's run is journaled and
// the tracer of its spans. An assembly of a drain fills one and hands it
// to every Execution and Model it makes; the zero value is a render
// with prose run's defaults, reading its files anew and keeping no
// journal.
type Drain struct {
	// Specs is the drain's spec graph (graph.Graph.Specs; nil: each
	// render reads its files anew).
	Specs *specgraph.Graph
	// Model and BaseURL are --model and --base-url ("": PROSE_MODEL and
	// OPENAI_BASE_URL); MaxTurns is --max-turns, MCPConfig --mcp-config,
	// Limits --max-parallel, --max-steps and --max-value-bytes.
	Model, BaseURL string
	MaxTurns       int
	MCPConfig      string
	Limits         run.Limits
	// Getenv reads the model configuration (nil: os.Getenv).
	Getenv func(string) string
	// State is the state directory: the run of each render of a node is
	// journaled in store.RunsDir(State, NODE) as drain-N (N the drain's
	// number; "drain-N.2" and on when a drain of that number left a
	// journal and no receipt), and its receipt's run names it. "" keeps
	// no journal.
	State string
	// SyncEvery is the journals' group-commit window (see
	// run.Options.SyncEvery): 0 is prose run's, run.DefaultSyncEvery; a
	// negative one fsyncs each record.
	SyncEvery time.Duration
	// Telemetry, when set, exports the run of each render (an
	// Execution's, a function's a model render calls) as spans under the
	// span the render's context carries (see telemetry.World).
	Telemetry *telemetry.Tracer
}

// request is the run request of a render of spec: prose run's settings.
func (d *Drain) request(spec, dir string) run.Request {
	if d == nil {
		return run.Request{Spec: spec, Dir: dir}
	}
	return run.Request{Spec: spec, Dir: dir, Model: d.Model, BaseURL: d.BaseURL, MaxTurns: d.MaxTurns, MCPConfig: d.MCPConfig, Limits: d.Limits}
}

// options are the run options of a render of node in the drain
// numbered drain.
func (d *Drain) options(node string, drain int) (run.Options, error) {
	if d == nil {
		return run.Options{}, nil
	}
	o := run.Options{Specs: d.Specs, Getenv: d.Getenv, SyncEvery: max(d.SyncEvery, 0), Telemetry: d.Telemetry}
	if d.SyncEvery == 0 {
		o.SyncEvery = run.DefaultSyncEvery
	}
	if d.State == "" {
		return o, nil
	}
	o.RunDir = store.RunsDir(d.State, node)
	o.RunID = fmt.Sprintf("drain-%d", drain)
	for n := 2; ; n++ {
		if _, err := os.Lstat(filepath.Join(o.RunDir, o.RunID)); errors.Is(err, fs.ErrNotExist) {
			return o, nil
		} else if err != nil {
			return o, err
		}
		o.RunID = fmt.Sprintf("drain-%d.%d", drain, n)
	}
}

// load loads a spec file: from the drain's graph, else anew.
func (d *Drain) load(path string) (*spec.Spec, diag.List, error) {
	if d == nil || d.Specs == nil {
		return spec.Load(path)
	}
	return d.Specs.Load(path)
}

// finder resolves calls: through the drain's graph, else the operating
// system's files.
func (d *Drain) finder() *spec.Finder {
	if d == nil || d.Specs == nil {
		return &spec.Finder{}
	}
	return d.Specs.Finder()
}
