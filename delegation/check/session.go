package check

import (
	"slices"

	"github.com/proselang/prose/delegation/syntax"
)

// CodeSession: an agent defined twice, a session of an agent that is not
// defined, or an agent property prose cannot honour (persist:, skills:).
const CodeSession = "check/session"

// session checks a session (a call whose Session is set): its arguments
// (the prompt's interpolated names, the context's names) and its retry
// and backoff. Its target is the hidden name of its model service, never
// a name of the program.
func (c *checker) session(e *syntax.CallExpr) {
	c.fields(e.Args, "property")
	c.retries(e)
	if e.Session.Agent != nil && c.prog != nil && c.prog.Agent(e.Session.Agent.Name) == nil {
		names := make([]string, len(c.prog.Agents))
		for i, a := range c.prog.Agents {
			names[i] = a.Name.Name
		}
		msg := "no agent is named " + quote(e.Session.Agent.Name)
		if s := closest(e.Session.Agent.Name, names); s != "" {
			msg += "; did you mean " + quote(s) + "?"
		} else {
			msg += ": define it at the top level, agent " + e.Session.Agent.Name + ": with its prompt: and model:"
		}
		c.diags.Errorf(c.f, e.Session.Agent.NamePos, CodeSession, "%s", msg)
	}
}

// agentDefs checks the agent definitions of prog: each name once, and
// no property whose promise prose does not keep.
func (c *checker) agentDefs(prog *syntax.Program) {
	seen := map[string]bool{}
	for _, a := range prog.Agents {
		if seen[a.Name.Name] {
			c.diags.Errorf(c.f, a.Name.NamePos, CodeSession, "agent %s is defined twice: keep one definition, or give the other another name", quote(a.Name.Name))
		}
		seen[a.Name.Name] = true
		if slices.Contains(c.blockNames, a.Name.Name) {
			c.diags.Errorf(c.f, a.Name.NamePos, CodeSession, "agent %s is named as a block is: give one of them another name (upstream refuses the clash)", quote(a.Name.Name))
		}
		if a.Persist != nil && !isFalse(a.Persist) {
			c.diags.Errorf(c.f, a.Persist.Pos(), CodeSession,
				"agent %s: prose keeps no agent memory across sessions or runs yet, so persist: cannot be honoured: remove it (each session starts fresh) and pass what a session must know with its context:", a.Name.Name)
		}
		if a.Skills != nil && !isEmptyList(a.Skills) {
			c.diags.Errorf(c.f, a.Skills.Pos(), CodeSession,
				"agent %s: prose does not give an agent's sessions skills yet: declare them under ### Skills of a ## node and call that node, or remove skills:", a.Name.Name)
		}
	}
}

func isFalse(x syntax.Expr) bool {
	b, ok := x.(*syntax.BoolLit)
	return ok && !b.Value
}

func isEmptyList(x syntax.Expr) bool {
	l, ok := x.(*syntax.ListLit)
	return ok && len(l.Elems) == 0
}
