package main

import (
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/patterns"
)

// renderService is the Env.Render hook: the model that renders a function
// or responsibility given its contract.
func (m *runModels) renderService(b *patterns.RenderBinding) (patterns.Service, error) {
	if b.Model == "" && !m.cfg.Configured() {
		return nil, patterns.ErrNoModel
	}
	c, err := m.client(b.Model)
	if err != nil {
		return nil, err
	}
	return llm.NewRenderService(c, patterns.RenderInfo(b.Node, b.Name, b.Model)), nil
}
