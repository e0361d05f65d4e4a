package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/tools"
)

// Models is the model side of one run: the clients (when a model is
// configured), the model judge, the services of slots bound to `llm` and
// of functions rendered by a model. A program that runs specs through
// package runhost itself (a test runner) builds one with NewModels.
type Models struct {
	cfg     llm.Config
	mu      sync.Mutex
	clients map[string]*llm.Client // by model; "" is the configured one
	replay  bool                   // a replay asks no model: no key is needed
	// tools serve the renders whose nodes declare ### Tools (tools.go).
	tools    *tools.Box
	maxTurns int
	// dir is the run's directory, where relative spec names resolve
	// first (skills.go finds a node's skills from its file).
	dir string
}

// NewModels reads the model configuration from getenv, with model and
// baseURL (when not empty) in place of PROSE_MODEL and OPENAI_BASE_URL.
// No model configured is not an error: runs that need none work without.
// A configuration that cannot answer (OpenAI's API without a key) is
// refused here, before anything runs.
func NewModels(getenv func(string) string, model, baseURL string) (*Models, error) {
	return newModels(getenv, Request{Model: model, BaseURL: baseURL}, false)
}

// newModels is NewModels for a request; a replay is not refused for a
// missing key, since it asks no model.
func newModels(getenv func(string) string, req Request, replay bool) (*Models, error) {
	cfg, err := llm.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	if req.Model != "" {
		cfg.Model = req.Model
	}
	if req.BaseURL != "" {
		cfg.BaseURL = req.BaseURL
	}
	m := &Models{cfg: cfg, clients: map[string]*llm.Client{}, replay: replay}
	if cfg.Configured() {
		if err := m.preflight(); err != nil {
			return nil, err
		}
		if _, err := m.Client(""); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Client returns the client for model ("" is the configured model).
func (m *Models) Client(model string) (*llm.Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.clients[model]; ok {
		return c, nil
	}
	cfg := m.cfg
	if model != "" {
		cfg.Model = model
	}
	c, err := llm.NewClient(cfg, nil)
	if err != nil {
		return nil, fmt.Errorf("%s", redact.New(m.cfg.Secrets()...).String(err.Error()))
	}
	m.clients[model] = c
	return c, nil
}

// apply puts the model judge and the llm slot hook into opts.
func (m *Models) apply(opts *runhost.RunOptions) {
	opts.ModelHint = runhost.DefaultModelHint
	if c := m.clients[""]; c != nil {
		opts.ModelJudgeFor = func(sp *spec.Spec) delegation.Judge {
			return llm.NewModelJudge(c, llm.JudgeOptions{Pattern: sp.Name, Invariants: sp.Invariants})
		}
	}
	opts.Env.LLM = m.SlotService
	opts.Env.Render = m.RenderService
	opts.Env.Subagent = m.SubagentService
}

// SlotService is the Env.LLM hook: a model acting in the slot's role.
func (m *Models) SlotService(b *bind.Slot) (service.Service, error) {
	if b.Arg == "" && !m.cfg.Configured() {
		return nil, fmt.Errorf("%s=llm needs a model: pass --model or set PROSE_MODEL, or write llm:MODEL", b.Path)
	}
	if err := m.preflight(); err != nil {
		return nil, err
	}
	c, err := m.Client(b.Arg)
	if err != nil {
		return nil, err
	}
	info := llm.SlotInfo{Slot: b.Path, Name: b.Name, Model: b.Arg}
	if sp := b.Spec; sp != nil {
		info.Pattern = sp.Name
		info.Description = strings.TrimSpace(sp.Description)
		if info.Description == "" {
			info.Description = sp.Summary
		}
		info.Role = slotRole(sp, b.Slot)
	}
	if s := b.Slot; s != nil {
		info.Slot = s.Name
		info.Requires, info.Ensures, info.Maintains = s.Requires, s.Ensures, s.Maintains
	}
	return llm.NewSlotService(c, info), nil
}

// slotRole is the slot's role in the spec's Shape ("" when not listed).
func slotRole(sp *spec.Spec, s *spec.Slot) string {
	if sp.Shape == nil || s == nil {
		return ""
	}
	for _, d := range sp.Shape.Delegates {
		if d.Name == s.Name || d.Slot == s.Name {
			return d.Role
		}
	}
	return ""
}

// usage is the run's model usage, with the judgments decided from the
// data; ok is false when no model was asked anything.
func (m *Models) usage(decided int) (u llm.Usage, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.clients {
		u = u.Add(c.Usage())
	}
	u.JudgeAvoided = int64(decided)
	return u, u.ModelCalls > 0 || u.JudgeCalls > 0
}

// replayModel stands in for a model during a replay: never called, since
// every answer comes from the journal, so a run that used a model replays
// without one configured.
type replayModel struct{}

var errReplayModel = errors.New("a replay asks no model: this answer is not in the journal")

func (replayModel) Judge(context.Context, *delegation.Judgment) (delegation.Verdict, error) {
	return delegation.Verdict{}, errReplayModel
}

func (replayModel) Call(context.Context, *delegation.CallRequest) (delegation.Value, error) {
	return nil, errReplayModel
}

// preflight refuses a model configuration that cannot answer: OpenAI's
// own API without a key (llm.Config.CheckKey). A replay asks no model, so
// it is not checked.
func (m *Models) preflight() error {
	if m.replay {
		return nil
	}
	return m.cfg.CheckKey()
}

// RenderService is the Env.Render hook: the model that renders a function
// or responsibility given its contract.
func (m *Models) RenderService(b *bind.Render) (service.Service, error) {
	if b.Model == "" && !m.cfg.Configured() {
		if m.replay {
			// the journal answers every render (and each turn of a
			// tool session): a replay needs no model
			return &service.Func{Name: b.Name, Fn: replayModel{}.Call}, nil
		}
		return nil, bind.ErrNoModel
	}
	c, err := m.Client(b.Model)
	if err != nil {
		return nil, err
	}
	info := callgraph.RenderInfo(b.Node, b.Name, b.Model)
	if err := m.withTools(&info, b.Node); err != nil {
		return nil, err
	}
	if err := m.withSkills(&info, b.Node); err != nil {
		return nil, err
	}
	return llm.NewRenderService(c, info), nil
}

// Configured is the client of the configured model, nil when no model is
// configured.
func (m *Models) Configured() *llm.Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.clients[""]
}

// Secrets are the configuration's secrets (the API key, credentials in the
// base URL), for a redactor.
func (m *Models) Secrets() []string { return m.cfg.Secrets() }

// SubagentService is the Env.Subagent hook: the model that answers a
// script's sessions.
func (m *Models) SubagentService(b *bind.Subagent) (service.Service, error) {
	if b.Model == "" && !m.cfg.Configured() {
		if m.replay {
			// the journal answers every session: a replay needs no model
			return &service.Func{Name: b.Name, Fn: replayModel{}.Call}, nil
		}
		return nil, bind.ErrNoModel
	}
	if err := m.preflight(); err != nil {
		return nil, err
	}
	c, err := m.Client(b.Model)
	if err != nil {
		return nil, err
	}
	return llm.NewSubagent(c, llm.SubagentInfo{Name: b.Name, Agent: b.Agent, Prompt: b.Prompt, Shape: b.Shape, Model: b.Model}), nil
}
