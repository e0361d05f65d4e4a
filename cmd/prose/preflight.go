package main

import "github.com/proselang/prose/llm"

// modelPreflight refuses, before a run starts, a model configuration that
// cannot answer: OpenAI's own API without a key (llm.Config.CheckKey). A
// replay asks no model (every answer comes from the journal), so it is
// not checked.
func modelPreflight(o *runOptions, cfg llm.Config) error {
	if o.journal.replay != "" {
		return nil
	}
	return cfg.CheckKey()
}
