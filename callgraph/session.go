package callgraph

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Sessions.
//
// A ProseScript session (`session "PROMPT"`, `session: AGENT`) is a call
// of a hidden name (syntax.Session.Name) that the graph binds, before
// anything starts, to the model service Env.Subagent builds: one per
// distinct name, that is per agent (or for the one-off sessions) and
// model. The agent's prompt is its system prompt and its shape lines
// are its boundaries; a session's `model:` overrides its agent's, which
// overrides the configured model. With no model configured and none
// named, the run is refused before it starts, naming each session, as
// it is for a node rendered by a model.

// bindSession binds the hidden name of the session call c, made in n's
// program prog, in out. Two sessions written alike (`session: critic`
// twice) share it, so they must ask for the same model: one that names
// another is a problem saying how to tell them apart.
func (g *callGraph) bindSession(n *spec.Spec, prog *syntax.Program, c *syntax.CallExpr, out map[string]delegation.Value) {
	id := c.Target.(*syntax.Ident)
	if v, ok := out[id.Name]; ok {
		if s, ok := v.(service.Service); ok && s.ServiceName() != c.Session.Name {
			g.problem("%s: %s is written as another session is (%s) but asks for another model: give it a label (session LABEL: AGENT), or name the model on the agent",
				n.File.Position(c.Session.Session), c.Session.Name, s.ServiceName())
		}
		return
	}
	if s := g.session(n, prog, c); s != nil {
		out[id.Name] = s
	}
}

// session is the service of the session call c made in n's program prog.
func (g *callGraph) session(n *spec.Spec, prog *syntax.Program, c *syntax.CallExpr) service.Service {
	s := c.Session
	b := &bind.Subagent{Name: s.Name, Model: s.Model}
	if s.Agent != nil {
		a := prog.Agent(s.Agent.Name)
		if a == nil {
			g.problem("%s: %s: no agent is named %q", n.File.Position(s.Agent.NamePos), s.Name, s.Agent.Name)
			return nil
		}
		b.Agent = a.Name.Name
		if a.Prompt != nil {
			b.Prompt = a.Prompt.Value
		}
		if b.Model == "" {
			b.Model = a.Model
		}
		for _, it := range a.Shape {
			b.Shape = append(b.Shape, it.Key+": "+strings.Join(it.Values, "; "))
		}
	}
	at := n.File.Position(s.Session)
	if g.env.Subagent != nil {
		svc, err := g.env.Subagent(b)
		if err == nil {
			return svc
		}
		if !errors.Is(err, bind.ErrNoModel) {
			g.problem("%s: %s: %v", at, s.Name, err)
			return nil
		}
	}
	g.needSession = append(g.needSession, fmt.Sprintf("%s: %s", at, s.Name))
	return &service.Func{Name: s.Name, Fn: unbound(s.Name)}
}

// sessionsNeedModel reports, as one problem, the sessions that need a
// model when none is configured.
func (g *callGraph) sessionsNeedModel() {
	if len(g.needSession) == 0 {
		return
	}
	sort.Strings(g.needSession)
	g.problem("no model is configured, and these sessions are answered by one:\n  %s\nconfigure a model (--model or PROSE_MODEL, with OPENAI_API_KEY and OPENAI_BASE_URL), or name one under the session or its agent (model: NAME)",
		strings.Join(g.needSession, "\n  "))
}
