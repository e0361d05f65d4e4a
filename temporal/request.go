package temporal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/spec"
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
	Bindings patterns.Bindings `json:"bindings"`
	// Dir is the working directory of exec programs on the worker ("": the
	// worker's own), as run.Request.Dir is for a local run.
	Dir           string `json:"dir,omitempty"`
	MaxParallel   int    `json:"max_parallel,omitempty"`
	MaxSteps      int    `json:"max_steps,omitempty"`
	MaxValueBytes int64  `json:"max_value_bytes,omitempty"`
	// Model is the model for llm slots and model judgments ("": the
	// worker's default).
	Model string `json:"model,omitempty"`
}

// Source is one spec's text and its digest ("sha256:HEX").
type Source struct {
	Name   string `json:"name"` // the file name diagnostics print
	Text   string `json:"text"`
	Digest string `json:"digest"`
}

func digestOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ResolveOptions says what to resolve.
type ResolveOptions struct {
	Path     string
	Bindings patterns.Bindings
	// Dir is where relative spec paths are read from here and where
	// programs run on the workers ("": each one's working directory).
	Dir           string
	MaxParallel   int
	MaxSteps      int
	MaxValueBytes int64
	Model         string
	// Load reads a spec (nil: patterns.LoadSpec).
	Load func(path string) (*spec.Spec, diag.List, error)
	// HaveModel says a model is configured for the run (on the workers):
	// without one, a spec whose conditions certainly need a model is
	// refused here, before anything starts.
	HaveModel bool
}

// Resolve reads the spec and every nested spec its bindings name, checks
// and binds them exactly as a local run would (the same *patterns.SpecError
// and *patterns.UsageError, before anything starts) and returns the
// Request a workflow runs. Contract Markdown graphs (kind function or
// responsibility, whose calls may reach sibling files on disk) are
// refused: they run on the local engine.
func Resolve(o ResolveOptions) (Request, error) {
	load := o.Load
	if load == nil {
		load = patterns.LoadSpec
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
		MaxParallel: o.MaxParallel, MaxSteps: o.MaxSteps, MaxValueBytes: o.MaxValueBytes, Model: o.Model,
	}
	var contract string
	record := func(path string) (*spec.Spec, diag.List, error) {
		sp, diags, err := load(path)
		if err == nil && sp != nil && sp.Contract && sp.Kind != "pattern" && sp.Kind != "" && contract == "" && sp.File != nil {
			contract = fmt.Sprintf("%s is a %s: the Temporal engine runs pattern specs (a Delegation, nested patterns included); run Contract Markdown graphs on the local engine", sp.File.Name, sp.Kind)
		}
		if err == nil && sp != nil && sp.File != nil {
			text := string(sp.File.Source())
			req.Sources[path] = Source{Name: sp.File.Name, Text: text, Digest: digestOf(text)}
		}
		return sp, diags, err
	}
	env := &patterns.Env{
		Dir:    o.Dir,
		Nested: patterns.NestedSpecWith(record),
		LLM: func(b *patterns.SlotBinding) (patterns.Service, error) {
			return &remoteService{name: b.Name, kind: patterns.KindLLM, arg: b.Arg}, nil
		},
	}
	opts := patterns.RunOptions{Path: o.Path, Load: record, Bindings: o.Bindings, Env: env}
	if o.HaveModel {
		opts.ModelJudge = &remoteJudge{}
	}
	_, err := patterns.Prepare(opts)
	if contract != "" {
		return Request{}, &patterns.UsageError{Problems: []string{contract}}
	}
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

// remoteMarker is put in front of an exec command while the workflow binds
// its spec, so that binding never looks at the worker's disk (a workflow
// must not: its replay would depend on the machine). The exec service Bind
// builds is replaced by a remoteService carrying the command as written.
const remoteMarker = "prose-remote-exec "

func markExec(b patterns.Bindings) patterns.Bindings {
	out := b
	out.Slots = make([]patterns.Assignment, len(b.Slots))
	for i, a := range b.Slots {
		if v := strings.TrimSpace(a.Value); strings.HasPrefix(v, "exec:") {
			a.Value = "exec:" + remoteMarker + strings.TrimSpace(strings.TrimPrefix(v, "exec:"))
		}
		out.Slots[i] = a
	}
	return out
}

// remoteSlots replaces, in place, every exec service of the instance and
// of its nested instances with a remote one.
func remoteSlots(in *patterns.Instance, dir string, seen map[*patterns.Instance]bool) {
	if in == nil || seen[in] {
		return
	}
	seen[in] = true
	var conv func(v delegation.Value) delegation.Value
	conv = func(v delegation.Value) delegation.Value {
		switch s := v.(type) {
		case *patterns.ExecService:
			return &remoteService{name: s.Name, kind: patterns.KindExec, arg: strings.TrimPrefix(s.Command, remoteMarker), dir: dir}
		case *patterns.NestedService:
			remoteSlots(s.Instance, dir, seen)
		case *delegation.List:
			for i := 0; i < s.Len(); i++ {
				e, _ := s.Index(i)
				s.Set(i, conv(e))
			}
		}
		return v
	}
	for k, v := range in.Slots {
		in.Slots[k] = conv(v)
	}
}
