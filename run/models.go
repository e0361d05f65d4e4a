package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/spec"
)

// models is the model side of one run: the clients (when a model is
// configured), the model judge, the llm slot services.
type models struct {
	cfg     llm.Config
	mu      sync.Mutex
	clients map[string]*llm.Client // by model; "" is the configured one
}

// newModels reads the model configuration from getenv and the request's
// Model and BaseURL. No model configured is not an error: runs that need
// none work without.
func newModels(getenv func(string) string, req Request) (*models, error) {
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
	m := &models{cfg: cfg, clients: map[string]*llm.Client{}}
	if cfg.Configured() {
		if _, err := m.client(""); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// client returns the client for model ("" is the configured model).
func (m *models) client(model string) (*llm.Client, error) {
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
		return nil, fmt.Errorf("%s", llm.Redact(err.Error(), m.cfg.APIKey))
	}
	m.clients[model] = c
	return c, nil
}

// apply puts the model judge, the llm slot hook and the secrets to scrub
// into opts.
func (m *models) apply(opts *patterns.RunOptions) {
	opts.Secrets = append(opts.Secrets, m.cfg.Secrets()...)
	opts.ModelHint = patterns.DefaultModelHint
	if c := m.clients[""]; c != nil {
		opts.ModelJudgeFor = func(sp *spec.Spec) delegation.Judge {
			return llm.NewModelJudge(c, llm.JudgeOptions{Pattern: sp.Name, Invariants: sp.Invariants})
		}
	}
	opts.Env.LLM = m.slotService
	opts.ModelUsage = func(t patterns.Totals) any {
		if u, ok := m.usage(t.DecidedJudgments); ok {
			return u
		}
		return nil
	}
}

// slotService is the Env.LLM hook: a model acting in the slot's role.
func (m *models) slotService(b *patterns.SlotBinding) (patterns.Service, error) {
	if b.Arg == "" && !m.cfg.Configured() {
		return nil, fmt.Errorf("%s=llm needs a model: pass --model or set PROSE_MODEL, or write llm:MODEL", b.Path)
	}
	c, err := m.client(b.Arg)
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
func (m *models) usage(decided int) (u llm.Usage, ok bool) {
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
