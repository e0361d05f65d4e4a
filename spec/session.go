package spec

import (
	"github.com/proselang/prose/delegation/syntax"
)

// sessionsOutsideExecution reports the sessions and agent definitions
// of a Delegation: a session is answered by a model service the run of
// a function's or a responsibility's ### Execution binds (callgraph); a
// pattern's Delegation has its slots, and a slot bound to a model (llm)
// is how it asks one.
func (l *loader) sessionsOutsideExecution(prog *syntax.Program) {
	const fix = "a session runs in a function's or responsibility's ### Execution; a pattern's Delegation calls its slots: call a slot and bind it to a model (--slot NAME=llm)"
	for _, a := range prog.Agents {
		l.errorf(int(a.Agent), CodeUnsupportedScript, "agent %s is defined in a Delegation, where no session runs: %s", a.Name.Name, fix)
	}
	for _, c := range prog.Calls() {
		if c.Session != nil {
			l.errorf(int(c.Session.Session), CodeUnsupportedScript, "%s in a Delegation does not run: %s", c.Session.Name, fix)
		}
	}
}
