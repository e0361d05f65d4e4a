package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/patterns"
	"github.com/proselang/prose/spec"
)

// runModels is the model side of one `prose run`: the client (when a
// model is configured), the model judge, the llm slot services.
type runModels struct {
	opts    *runOptions
	cfg     llm.Config
	clients map[string]*llm.Client // by model; "" is the configured one
}

// newModels reads the model configuration from the environment and the
// --model/--base-url flags. No model configured is not an error: runs
// that need none work without.
func newModels(o *runOptions) (*runModels, error) {
	cfg, err := llm.ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	if o.model != "" {
		cfg.Model = o.model
	}
	if o.baseURL != "" {
		cfg.BaseURL = o.baseURL
	}
	m := &runModels{opts: o, cfg: cfg, clients: map[string]*llm.Client{}}
	if cfg.Configured() {
		if err := modelPreflight(o, cfg); err != nil {
			return nil, err
		}
		if _, err := m.client(""); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// client returns the client for model ("" is the configured model).
func (m *runModels) client(model string) (*llm.Client, error) {
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
func (m *runModels) apply(opts *patterns.RunOptions) {
	opts.Secrets = append(opts.Secrets, m.cfg.Secrets()...)
	opts.ModelHint = patterns.DefaultModelHint
	if c := m.clients[""]; c != nil {
		opts.ModelJudgeFor = func(sp *spec.Spec) delegation.Judge {
			return llm.NewModelJudge(c, llm.JudgeOptions{Pattern: sp.Name, Invariants: sp.Invariants})
		}
	}
	opts.Env.LLM = m.slotService
	opts.Env.Render = m.renderService
	opts.ModelUsage = func(t patterns.Totals) any {
		if u, ok := m.usage(t.DecidedJudgments); ok {
			return u
		}
		return nil
	}
}

// slotService is the Env.LLM hook: a model acting in the slot's role.
func (m *runModels) slotService(b *patterns.SlotBinding) (patterns.Service, error) {
	if b.Arg == "" && !m.cfg.Configured() {
		return nil, fmt.Errorf("%s=llm needs a model: pass --model or set PROSE_MODEL, or write llm:MODEL", b.Path)
	}
	if err := modelPreflight(m.opts, m.cfg); err != nil {
		return nil, err
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
func (m *runModels) usage(decided int) (u llm.Usage, ok bool) {
	for _, c := range m.clients {
		u = u.Add(c.Usage())
	}
	u.JudgeAvoided = int64(decided)
	return u, u.ModelCalls > 0 || u.JudgeCalls > 0
}

// summary prints the model usage line, when a model was used; decided is
// the number of judgments decided from the data, without a model.
func (m *runModels) summary(w io.Writer, decided int) {
	if u, ok := m.usage(decided); ok {
		fmt.Fprintf(w, "prose: %s\n", u)
	}
}
