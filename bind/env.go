package bind

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/execsvc"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
)

// Env turns binding texts into services. The zero Env understands
// `exec:COMMAND`; model-backed slots and nested specs need their hooks.
//
// Env lives here, with the texts it reads, and not in package service:
// a Slot carries the Settings addressed to its nested spec, and package
// service stays below binding (decided when patterns was split by job).
type Env struct {
	// Dir is the working directory of exec services ("" is the current
	// directory).
	Dir string
	// MaxOutput caps an exec service's stdout (0: service.DefaultMaxOutput).
	MaxOutput int64
	// Grace is the SIGTERM-to-SIGKILL delay of exec services (0:
	// service.DefaultGrace).
	Grace time.Duration
	// LLM builds the service of an `llm` or `llm:MODEL` binding (Arg is
	// the model, "" for the configured default). nil: such bindings are a
	// usage error saying that no model client is available.
	LLM func(b *Slot) (service.Service, error)
	// Nested builds the service of a nested spec (`PATH.prose.md` or
	// `std/...`; Arg is the path), whose own slots and config are in
	// b.Sub. nil: such bindings are a usage error.
	Nested func(b *Slot) (service.Service, error)
	// Render builds the service that renders a function or responsibility
	// with a model (Contract Markdown; see package callgraph). nil, or an error
	// wrapping ErrNoModel: no model is configured.
	Render func(b *Render) (service.Service, error)
	// Subagent builds the model service of ProseScript sessions
	// (subagent.go). nil, or an error wrapping ErrNoModel: no model is
	// configured.
	Subagent func(b *Subagent) (service.Service, error)
	// Exec, when set, builds the service of an `exec:COMMAND` binding in
	// place of a service.Exec run here (nil: a service.Exec, its program
	// checked first). An engine that runs programs elsewhere sets it, so
	// that binding never looks at this machine's files.
	Exec func(b *Slot) (service.Service, error)
	// Finder finds the files a Contract Markdown call reaches (sibling
	// files, NAME/index.prose.md, std/); nil: this machine's files and
	// the embedded library. An engine whose specs travel with the run
	// sets one over the files it carries.
	Finder *spec.Finder
	// ContractCheck, when set, runs the rules of Contract Markdown a
	// function or responsibility (run, or bound to a slot) must pass
	// before it runs, given the loader's findings and Finder (prose
	// passes lint.Contract); nil: only what binding its callees finds. A
	// pattern's program is checked either way (spec.CheckProgram).
	ContractCheck func(sp *spec.Spec, loaded diag.List, f *spec.Finder) diag.List
	// LookPath, when set, finds the program an exec: command starts
	// with when that is a plain word (exec.LookPath): one it does not find
	// is refused before the run (onpath.go). nil: such words are not
	// checked.
	LookPath func(file string) (string, error)
	// UncheckedAnswers, when set, leaves slot answers unchecked against
	// the fields their ensures declares (answers.go): for an engine
	// replaying runs begun before they were checked.
	UncheckedAnswers bool
	// Services are the in-process services a `go:NAME` binding names (a
	// Go program embedding prose binds its own functions so).
	Services map[string]service.Service
	// Host serves a `host` binding: the slot's calls go to the agent host
	// connected to prose mcp, which fills them. nil: no host is connected,
	// and a host binding is refused before the run starts.
	Host func(b *Slot) (service.Service, error)
	// Runs resolves the references given to inputs typed run or run[]
	// (runinput.go); nil: such inputs cannot be bound (an error).
	Runs RunResolver
	// Prefix is the dotted path of the spec being bound inside its
	// parents, "" at the top ("target." for the spec bound to slot target).
	// Messages name slots, config keys and inputs with it.
	Prefix string
	// Depth is the nesting depth of the spec being bound (0 at the top).
	Depth int
	// DeferInputs makes Spec skip inputs: a nested spec receives them from
	// each call's arguments (Instance.WithArgs).
	DeferInputs bool
}

// Child returns the Env for the spec bound to slot: same hooks, one level
// deeper, its names prefixed with "slot.", inputs deferred to call time.
func (e *Env) Child(slot string) *Env {
	c := *e
	c.Prefix = e.Prefix + slot + "."
	c.Depth = e.Depth + 1
	c.DeferInputs = true
	return &c
}

// CheckContract runs e.ContractCheck on sp, given the loader's findings,
// when it is set (nil otherwise).
func (e *Env) CheckContract(sp *spec.Spec, loaded diag.List) diag.List {
	if e == nil || e.ContractCheck == nil {
		return nil
	}
	return e.ContractCheck(sp, loaded, e.Files())
}

// Files is the Finder of Contract Markdown calls: Env.Finder, else this
// machine's files and the embedded library.
func (e *Env) Files() *spec.Finder {
	if e != nil && e.Finder != nil {
		return e.Finder
	}
	return specgraph.New(specgraph.Options{}).Finder()
}

// Binding kinds.
const (
	KindExec = "exec"
	KindLLM  = "llm"
	KindSpec = "spec"
	KindGo   = "go"
	KindHost = "host"
)

// Slot is one `--slot NAME=VALUE` being turned into a service.
type Slot struct {
	Spec  *spec.Spec // the spec that declares the slot
	Slot  *spec.Slot
	Name  string // the service's name: "advancer", "candidates[1]", "target.refiner"
	Path  string // the slot's dotted path for messages: "target.refiner"
	Value string // the binding text as written
	Kind  string // KindExec, KindLLM, KindSpec, KindGo or KindHost
	Arg   string // the text after the kind: command, model, spec path
	// Sub holds the dotted settings addressed to this slot's nested spec
	// (`--slot target.refiner=...` arrives as refiner=...); nil when none.
	Sub *Settings
	Env *Env
}

// classify splits a binding text into its kind and argument.
func Classify(value string) (kind, arg string, err error) {
	v := strings.TrimSpace(value)
	switch {
	case strings.HasPrefix(v, "exec:"):
		arg = strings.TrimSpace(strings.TrimPrefix(v, "exec:"))
		if arg == "" {
			return "", "", fmt.Errorf("exec: needs a command, as in exec:./advance.sh")
		}
		return KindExec, arg, nil
	case v == "llm":
		return KindLLM, "", nil
	case strings.HasPrefix(v, "llm:"):
		return KindLLM, strings.TrimSpace(strings.TrimPrefix(v, "llm:")), nil
	case v == "host":
		return KindHost, "", nil
	case strings.HasPrefix(v, "go:"):
		arg = strings.TrimSpace(strings.TrimPrefix(v, "go:"))
		if arg == "" {
			return "", "", fmt.Errorf("go: needs the name of an in-process service, as in go:review")
		}
		return KindGo, arg, nil
	case strings.HasSuffix(v, ".prose.md") || strings.HasPrefix(v, "std/"):
		return KindSpec, v, nil
	}
	return "", "", UnknownBinding(value)
}

// UnknownBinding is the error of a binding text of no kind prose knows,
// with the kind meant when its prefix is a slip for one (execc:, lm:,
// exec without the colon).
func UnknownBinding(text string) error {
	v := strings.TrimSpace(text)
	hint := ""
	word, rest, colon := strings.Cut(v, ":")
	if !colon {
		word, rest, _ = strings.Cut(v, " ")
	}
	if k := Closest(strings.ToLower(word), []string{"exec", "llm", "host"}); k != "" || slices.Contains([]string{"exec", "llm"}, strings.ToLower(word)) {
		if k == "" {
			k = strings.ToLower(word)
		}
		if k == "host" || k == "llm" && rest == "" {
			hint = fmt.Sprintf("; did you mean %s?", k)
		} else {
			hint = fmt.Sprintf("; did you mean %s:%s?", k, strings.TrimSpace(rest))
		}
	}
	return fmt.Errorf("cannot tell what %q is: use exec:COMMAND for a program, llm or llm:MODEL for a model, or a .prose.md path (std/... for the library)%s", text, hint)
}

// Service builds the service of one binding (its Kind and Arg set by
// Classify).
func (e *Env) Service(b *Slot) (service.Service, error) {
	switch b.Kind {
	case KindExec:
		if b.Sub != nil {
			return nil, fmt.Errorf("%s is bound to a program; dotted settings (%s.NAME=...) only apply to a nested spec", b.Name, b.Name)
		}
		if e.Exec != nil {
			return e.Exec(b)
		}
		if err := execsvc.CheckProgram(e.Dir, b.Arg); err != nil {
			return nil, err
		}
		if e.LookPath != nil {
			if err := checkOnPath(e.LookPath, e.Dir, b.Arg); err != nil {
				return nil, err
			}
		}
		return &service.Exec{Name: b.Name, Command: b.Arg, Dir: e.Dir, MaxOutput: e.MaxOutput, Grace: e.Grace}, nil
	case KindLLM:
		if b.Sub != nil {
			return nil, fmt.Errorf("%s is bound to a model; dotted settings (%s.NAME=...) only apply to a nested spec", b.Name, b.Name)
		}
		if e.LLM == nil {
			return nil, fmt.Errorf("%s=%s: model-backed slots are not available here", b.Path, b.Value)
		}
		return e.LLM(b)
	case KindGo:
		svc, ok := e.Services[b.Arg]
		if !ok {
			return nil, fmt.Errorf("%s=%s: no in-process service %q (go:NAME binds a service a Go program registers with the run)", b.Path, b.Value, b.Arg)
		}
		return svc, nil
	case KindHost:
		if b.Sub != nil {
			return nil, fmt.Errorf("%s is bound to the host; dotted settings (%s.NAME=...) only apply to a nested spec", b.Name, b.Name)
		}
		if e.Host == nil {
			return nil, fmt.Errorf("%s=host: the host binding needs prose mcp (an agent host connected to it fills the slot's calls); here bind a program, a model or a spec", b.Path)
		}
		return e.Host(b)
	case KindSpec:
		if e.Nested == nil {
			return nil, fmt.Errorf("%s=%s: nested specs are not available here", b.Path, b.Value)
		}
		return e.Nested(b)
	}
	return nil, fmt.Errorf("%s: unknown binding kind %q", b.Path, b.Kind)
}

// listElem names element i of a list slot's services.
func listElem(name string, i int) string { return fmt.Sprintf("%s[%d]", name, i) }

// Render asks Env.Render for the service that renders one Contract
// Markdown node.
type Render struct {
	Node  *spec.Spec
	Name  string // the callee name it is called by
	Model string // "" for the configured model
}

// ErrNoModel is what Env.Render returns when no model is configured.
var ErrNoModel = errors.New("no model is configured")
