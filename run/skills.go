package run

import (
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/skilldecl"
	"github.com/proselang/prose/spec"
)

// withSkills gives info's render the skills node declares (its own, or
// its responsibility's): each must resolve (skilldecl.Load: the project's
// skills directory, found from the node's file, then the home
// directory's), and its SKILL.md is given to the model whole. A replay
// asks no model, so it resolves none. A render bound to a program does
// not come here: it uses no skill (lint still reports them).
func (m *Models) withSkills(info *llm.RenderInfo, node *spec.Spec) error {
	decls := skilldecl.ForRender(node)
	if len(decls) == 0 || m.replay {
		return nil
	}
	loaded, err := skilldecl.Load(decls, m.dir)
	if err != nil {
		return err
	}
	info.Skills = LLMSkills(loaded)
	return nil
}

// LLMSkills are the loaded skills as a render's instructions carry them.
func LLMSkills(loaded []skilldecl.Loaded) []llm.Skill {
	out := make([]llm.Skill, len(loaded))
	for i, s := range loaded {
		out[i] = llm.Skill{Name: s.Decl.Text, Dir: s.Dir, Text: s.Text}
	}
	return out
}
