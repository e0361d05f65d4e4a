package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/skilldecl"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/tools"
)

// Request is the resolved run request: the workflow's whole input.
type Request struct {
	// Spec is the top spec's path as the starter named it; it is a key of
	// Sources.
	Spec string `json:"spec"`
	// Sources holds every spec the run reads, keyed by the path that names
	// it (the top spec's path, a binding's PATH.prose.md or std/...).
	Sources map[string]Source `json:"sources"`
	// Bindings are the slots, config and inputs as written.
	Bindings bind.Settings `json:"bindings"`
	// Dir is the working directory of exec programs on the worker ("": the
	// worker's own), as run.Request.Dir is for a local run.
	Dir string `json:"dir,omitempty"`
	// Limits bound the run; embedded, so their keys stand at the top of
	// the request's JSON (max_parallel, ...), as recorded histories have
	// them.
	runhost.Limits
	// Model is the model for llm slots and model judgments ("": the
	// worker's default).
	Model string `json:"model,omitempty"`
}

// Source is one spec's text and its digest ("sha256:HEX").
type Source struct {
	Name   string `json:"name"` // the file name diagnostics print
	Text   string `json:"text"`
	Digest string `json:"digest"`
	// File says the starter read it from a file of that Name (not from
	// the embedded library): the calls of a Contract Markdown graph find
	// it beside its siblings, on a worker as on the starter.
	File bool `json:"file,omitempty"`
}

func digestOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ResolveOptions says what to resolve.
type ResolveOptions struct {
	Path     string
	Bindings bind.Settings
	// Dir is where relative spec paths are read from here and where
	// programs run on the workers ("": each one's working directory).
	Dir    string
	Limits runhost.Limits
	Model  string
	// Load reads a spec (nil: callgraph.LoadSpec).
	Load func(path string) (*spec.Spec, diag.List, error)
	// HaveModel says a model is configured for the run (on the workers):
	// without one, a spec whose conditions certainly need a model is
	// refused here, before anything starts. Renders of functions and
	// responsibilities are not refused: the worker that serves them has
	// its own model.
	HaveModel bool
}

// Resolve reads the spec and every spec the run can reach (nested specs
// its bindings name; for a Contract Markdown function or responsibility,
// every file its calls resolve to: siblings, NAME/index.prose.md, std/
// specs, pattern instances), checks and binds them exactly as a local run
// would (the same *callgraph.SpecError and *bind.UsageError, before
// anything starts) and returns the Request a workflow runs.
func Resolve(o ResolveOptions) (Request, error) {
	load := o.Load
	if load == nil {
		load = callgraph.LoadSpec
	}
	if dir, base := o.Dir, load; dir != "" {
		// relative spec paths are read from Dir (std/... names not on
		// disk there fall back to the library)
		load = func(path string) (*spec.Spec, diag.List, error) {
			if p := filepath.Join(dir, path); !filepath.IsAbs(path) && fileExists(p) {
				return base(p)
			}
			return base(path)
		}
	}
	req := Request{
		Spec: o.Path, Sources: map[string]Source{}, Bindings: o.Bindings, Dir: o.Dir,
		Limits: o.Limits, Model: o.Model,
	}
	record := func(path string) (*spec.Spec, diag.List, error) {
		sp, diags, err := load(path)
		if err == nil && sp != nil && sp.File != nil {
			text := string(sp.File.Source())
			req.Sources[path] = Source{Name: sp.File.Name, Text: text, Digest: digestOf(text), File: fileExists(sp.File.Name)}
		}
		return sp, diags, err
	}
	// The starter assembles the run as the workflow will (run.Prepare,
	// deterministic), with the same checks and bindings, reading the
	// specs through record; programs are checked here, models and
	// renders are the workers'.
	hooks := &run.ModelHooks{
		LLM: func(b *bind.Slot) (service.Service, error) {
			return &remoteService{name: b.Name, kind: bind.KindLLM, arg: b.Arg}, nil
		},
		Subagent: noSessions,
		// A render is served by a worker's model client, which the
		// starter cannot see: it needs no model named here (a worker
		// without one fails the call, saying so).
		Render: func(b *bind.Render) (service.Service, error) {
			if d := tools.ForRender(b.Node); len(d) > 0 {
				// refused before the run starts, not rendered without them
				return nil, fmt.Errorf("declares ### Tools (%s, at %s), and tool sessions do not run on the Temporal engine yet: run it with the local engine", d[0].Text, d[0].Position())
			}
			if d := skilldecl.ForRender(b.Node); len(d) > 0 {
				// a worker may not have the skills the starter's
				// project and home directory hold: refused, not
				// rendered without them or with others
				return nil, fmt.Errorf("declares ### Skills (%s, at %s), and skills are not given to renders on the Temporal engine yet: run it with the local engine", d[0].Text, d[0].Position())
			}
			return &remoteService{name: b.Name, kind: kindRender, arg: b.Model}, nil
		},
	}
	if o.HaveModel {
		hooks.JudgeFor = func(*spec.Spec) delegation.Judge { return &remoteJudge{} }
	}
	_, err := run.Prepare(context.Background(), run.Request{Spec: o.Path, Dir: o.Dir, Bindings: o.Bindings, Limits: o.Limits}, run.Options{
		Deterministic: true,
		Specs:         specgraph.New(specgraph.Options{Load: record}),
		ContractCheck: lint.Contract,
		Models:        hooks,
	})
	if err != nil {
		return Request{}, err
	}
	return req, nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// loader reads specs from the Request, never from disk, checking each
// source against its digest.
func (r *Request) loader() func(path string) (*spec.Spec, diag.List, error) {
	return func(path string) (*spec.Spec, diag.List, error) {
		src, ok := r.Sources[path]
		if !ok {
			return nil, nil, fmt.Errorf("%s: the run request carries no such spec (known: %s)", path, strings.Join(r.paths(), ", "))
		}
		if d := digestOf(src.Text); d != src.Digest {
			return nil, nil, fmt.Errorf("%s: its text does not match its digest %s (got %s)", path, src.Digest, d)
		}
		sp, diags := spec.Parse(src.Name, []byte(src.Text))
		return sp, diags, nil
	}
}

func (r *Request) paths() []string {
	var ps []string
	for p := range r.Sources {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// graph is the spec graph of a workflow: every spec it loads is read
// from the request (loader), and Contract Markdown calls resolve among
// the carried files (finder).
func (r *Request) graph() *specgraph.Graph {
	f := r.finder()
	return specgraph.New(specgraph.Options{Load: r.loader(), FS: f.FS, Std: f.Std})
}

// kindRender is the kind of a remote call that renders a function or
// responsibility with the worker's model.
const kindRender = "render"

// finder finds the files of the Request for Contract Markdown calls:
// those the starter read from files, under the names it read them by, so
// that a worker resolves every call to the file the starter did, never
// to one on its own disk.
func (r *Request) finder() *spec.Finder {
	fsys := sourceFS{}
	for _, s := range r.Sources {
		if s.File {
			fsys[filepath.Clean(s.Name)] = s.Text
		}
	}
	// A std/ spec the run carries is found whatever library this worker
	// embeds (the loader reads it from the request).
	inStd := func(p string) bool {
		_, ok := r.Sources[p]
		return ok && strings.HasPrefix(p, "std/") || specgraph.InStd(p)
	}
	return &spec.Finder{FS: fsys, Std: inStd}
}

// sourceFS is the carried spec files as a read-only file system, by the
// names the starter read them by (which may be absolute: spec.Finder
// passes them through as they are).
type sourceFS map[string]string

func (f sourceFS) Open(name string) (fs.File, error) {
	text, ok := f[filepath.Clean(name)]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &sourceFile{info: sourceInfo{name: path.Base(name), size: int64(len(text))}, r: strings.NewReader(text)}, nil
}

// ReadDir lists the carried files in dir, and the directories below it
// that hold carried files.
func (f sourceFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	dir = filepath.Clean(dir)
	seen := map[string]bool{}
	var out []fs.DirEntry
	for name, text := range f {
		for p := name; p != filepath.Dir(p); p = filepath.Dir(p) {
			if filepath.Dir(p) != dir {
				continue
			}
			if base := filepath.Base(p); !seen[base] {
				seen[base] = true
				out = append(out, fs.FileInfoToDirEntry(sourceInfo{name: base, size: int64(len(text)), dir: p != name}))
			}
			break
		}
	}
	if len(out) == 0 {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type sourceFile struct {
	info sourceInfo
	r    *strings.Reader
}

func (f *sourceFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *sourceFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *sourceFile) Close() error               { return nil }

type sourceInfo struct {
	name string
	size int64
	dir  bool
}

func (i sourceInfo) Name() string { return i.name }
func (i sourceInfo) Size() int64  { return i.size }
func (i sourceInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i sourceInfo) ModTime() time.Time { return time.Time{} }
func (i sourceInfo) IsDir() bool        { return i.dir }
func (i sourceInfo) Sys() any           { return nil }

// noSessions refuses a script's sessions before the run starts: a
// worker has no activity that answers one yet.
func noSessions(*bind.Subagent) (service.Service, error) {
	return nil, errors.New("ProseScript sessions do not run on the Temporal engine yet: run it with the local engine")
}
