package syntax

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/diag"
)

// Sessions and agents (ProseScript).
//
// `session "PROMPT"`, `session: AGENT` and `session LABEL: AGENT`, with an
// optional indented block of properties (prompt, model, context, retry,
// backoff), are one-off model calls. The parser writes each as a
// CallExpr whose Session is set, so that a session is a call everywhere
// a call is: the resolver, the checker, the evaluator, the journal, the
// budgets. Its target is a hidden name (Session.Name, spelt as no name
// can be) that the runner binds to the model service of the session
// before the run; its arguments are `prompt` (the prompt, interpolated as
// any string is) and `context` (an object of the values passed, when the
// session passes any); `retry:` and `backoff:` are its retries and
// backoff clauses, as they are a ProseScript call's.
//
// `agent NAME:` at the top level defines what the sessions of that agent
// share: a model, a system prompt and a shape. Program.Agents lists them;
// they are no statements (nothing runs where one is written), so a
// session may name an agent defined below it.

// Session is what a session says beyond the call it is written as.
type Session struct {
	Session diag.Pos // the keyword
	// Label is LABEL of `session LABEL: AGENT`, Agent is AGENT (both nil
	// for `session "PROMPT"`).
	Label *Ident
	Agent *Ident
	// Model is the model the session asks for (its `model:`), "" when it
	// names none; ModelPos its position.
	Model    string
	ModelPos diag.Pos
	// Name is the session's name in messages, traces and the journal:
	// the form as written (`session: researcher`, `session review:
	// researcher`, `session "Research {topic}"`, to the end of its first
	// line), with ` (model NAME)` when the session names a model. The
	// hidden name of its service (the call's Target) is that form alone,
	// which no name can be spelt as and which fits in the text it stands
	// for.
	Name string
}

// AgentDef is `agent NAME:` and its properties.
type AgentDef struct {
	Agent diag.Pos // the keyword
	Name  *Ident
	// Model is its `model:` ("" when none), Prompt its `prompt:` (the
	// system prompt of its sessions; nil when none).
	Model    string
	ModelPos diag.Pos
	Prompt   *StringLit
	// Shape holds `self:`, `delegates:` and `prohibited:` of its
	// `shape:` block, each as the texts written (a string or a list of
	// strings).
	Shape []ShapeItem
	// Persist and Skills are the properties as written (nil when
	// absent); prose refuses a persist other than false and any skill
	// (check/session.go).
	Persist Expr
	Skills  Expr
}

// ShapeItem is one line of an agent's shape.
type ShapeItem struct {
	KeyPos diag.Pos
	Key    string // self, delegates or prohibited
	Values []string
}

// Agent returns the agent of prog named name, or nil.
func (p *Program) Agent(name string) *AgentDef {
	for _, a := range p.Agents {
		if a.Name.Name == name {
			return a
		}
	}
	return nil
}

// sessionProps are the properties of a session, in the order messages
// list them.
var sessionProps = []string{"prompt", "model", "context", "retry", "backoff"}

// agentProps are the properties of an agent.
var agentProps = []string{"model", "prompt", "persist", "skills", "shape"}

// isSessionStart reports whether a session starts at the current token:
// `session` followed by a string, by ':' or by a name and ':'.
func (p *parser) isSessionStart() bool {
	if !p.isWord("session") {
		return false
	}
	next := p.peek(1)
	return next.kind == STRING || next.kind == COLON || next.kind == IDENT && p.peek(2).kind == COLON
}

// parseSession parses a session and its properties.
//
//	session      = 'session' ( STRING | ':' IDENT | IDENT ':' IDENT ) [ NEWLINE INDENT { session_prop } OUTDENT ] .
//	session_prop = ( 'prompt' ':' STRING | 'model' ':' ( IDENT | STRING ) | 'context' ':' context
//	               | 'retry' ':' expr | 'backoff' ':' ( IDENT | STRING ) ) NEWLINE .
//	context      = IDENT_PATH | '[' [ IDENT_PATH { ',' IDENT_PATH } ] ']' | object .
func (p *parser) parseSession() Expr {
	start := p.p
	kw := p.advance()
	s := &Session{Session: kw.pos}
	c := p.a.calls.new(CallExpr{Call: kw.pos, Session: s})
	var prompt *Field
	switch t := p.tok(); t.kind {
	case STRING:
		prompt = p.a.fields.new(Field{KeyPos: t.pos, Key: "prompt", Value: p.parsePrimary()})
	case COLON:
		p.advance()
		s.Agent = p.parseIdent("after 'session:', the agent it spawns")
	default:
		s.Label = p.parseIdent("after 'session'")
		p.expect(COLON, "after the session's label: session LABEL: AGENT")
		s.Agent = p.parseIdent("after the session's label, the agent it spawns")
	}
	c.EndPos = p.lastEnd()
	head := p.sourceText(p.toks[start:p.p])
	if i := strings.IndexByte(head, '\n'); i >= 0 {
		head = strings.TrimRight(head[:i], " \r") + "..."
	}
	s.Name = head
	var ctx *Field
	if p.tok().kind == NEWLINE && p.peek(1).kind == INDENT {
		p.advance()
		ind := p.advance()
		p.enter(ind.pos)
		seen := map[string]bool{}
		for k := p.tok().kind; k != OUTDENT && k != EOF; k = p.tok().kind {
			key, val := p.parseProperty("session", sessionProps, seen)
			switch key.raw {
			case "prompt":
				if prompt != nil {
					p.report(key.pos, "syntax/session-property", "the session's prompt is written twice: after 'session' and as prompt:; keep one")
				}
				prompt = p.a.fields.new(Field{KeyPos: key.pos, Key: "prompt", Value: p.promptString(val, "a session's prompt")})
			case "model":
				s.Model, s.ModelPos = p.modelName(val)
			case "context":
				ctx = p.a.fields.new(Field{KeyPos: key.pos, Key: "context", Value: p.contextObject(val)})
			case "retry":
				c.Retries = val
			case "backoff":
				c.Backoff = p.backoffStrategy(val)
			}
			c.EndPos = p.lastEnd()
		}
		p.leave()
		p.expect(OUTDENT, "at the end of the session's properties")
	}
	if prompt == nil {
		p.report(kw.pos, "syntax/session-prompt", "%s has no prompt: write the task under it, prompt: \"...\"", s.Name)
		prompt = p.a.fields.new(Field{KeyPos: kw.pos, Key: "prompt", Value: p.a.strs.new(StringLit{ValuePos: kw.pos, Raw: `""`})})
	}
	c.Args = []*Field{prompt}
	if ctx != nil {
		c.Args = append(c.Args, ctx)
	}
	if s.Model != "" {
		s.Name += " (model " + s.Model + ")"
	}
	c.Target = p.a.idents.new(Ident{NamePos: kw.pos, Name: head})
	return c
}

// parseProperty parses one `key: value` line of a session's or an
// agent's block; seen holds the keys met so far. A key that is none of
// keys, or that is met twice, is an error at the key; the line is still
// read.
func (p *parser) parseProperty(what string, keys []string, seen map[string]bool) (token, Expr) {
	t := p.tok()
	if t.kind != IDENT || p.peek(1).kind != COLON {
		p.errorf(t.pos, "syntax/expected", "expected a `key: value` property of the %s (%s), found %s", what, strings.Join(keys, ", "), describe(t))
	}
	switch {
	case !slices.Contains(keys, t.raw):
		article := "a "
		if what == "agent" {
			article = "an "
		}
		p.report(t.pos, "syntax/"+what+"-property", "unknown %s property '%s': %s%s takes %s", what, t.raw, article, what, strings.Join(keys, ", "))
	case seen[t.raw]:
		p.report(t.pos, "syntax/duplicate-property", "duplicate property '%s' in the %s: keep one", t.raw, what)
	}
	seen[t.raw] = true
	p.advance()
	p.advance()
	if t.raw == "shape" && what == "agent" {
		return *t, nil
	}
	if t.raw == "model" && what != "shape" {
		return *t, p.parseModel()
	}
	val := p.parseValue()
	p.endStmt(what + " property")
	return *t, val
}

// promptString is val, which must be a string literal.
func (p *parser) promptString(val Expr, what string) Expr {
	if _, ok := val.(*StringLit); !ok {
		p.report(val.Pos(), "syntax/session-property", "%s is a string: write prompt: \"...\", with {name} where a value goes", what)
	}
	return val
}

// parseModel parses the value of `model:`: one word or one string,
// else (`model: gpt-4o`, which reads as a subtraction) an error at it
// saying to quote it; the line is skipped and the value is nil.
func (p *parser) parseModel() Expr {
	t := p.tok()
	switch p.peek(1).kind {
	case NEWLINE, OUTDENT, EOF:
		if t.kind == IDENT || t.kind == STRING {
			v := p.parsePrimary()
			p.endStmt("model property")
			return v
		}
	}
	p.report(t.pos, "syntax/session-model", "write the model as one word or as a string (model: sonnet, model: \"gpt-4o-mini\"): prose asks the server for it by that name, so it cannot be computed")
	for k := p.tok().kind; k != NEWLINE && k != OUTDENT && k != EOF; k = p.tok().kind {
		p.advance()
	}
	p.endStmt("model property")
	return nil
}

// modelName is the model val names: a word (`model: sonnet`) or a
// string. prose sends it as the request's model, so it must be known
// before the run: anything else is an error at it.
func (p *parser) modelName(val Expr) (string, diag.Pos) {
	switch v := val.(type) {
	case nil:
		return "", 0 // parseModel reported it
	case *Ident:
		return v.Name, v.NamePos
	case *StringLit:
		if len(v.Parts) == 0 && strings.TrimSpace(v.Value) != "" {
			return v.Value, v.ValuePos
		}
	}
	p.report(val.Pos(), "syntax/session-model", "model: names the model as a word or a string (model: sonnet, model: \"gpt-4o-mini\"): prose asks the server for it by that name and must know it before the run, so it cannot be computed")
	return "", val.Pos()
}

// contextObject is the object a session's `context:` passes: a name
// (`context: findings`) or a member path passes {NAME: value}, a list of
// them one key each, an object as written (`{ brief, evidence: findings
// }`), `[]` nothing.
func (p *parser) contextObject(val Expr) Expr {
	o := p.a.objects.new(ObjectLit{Lbrace: val.Pos(), Rbrace: val.End() - 1})
	one := func(x Expr) {
		path := pathOf(x)
		if path == "" {
			p.report(x.Pos(), "syntax/session-context", "context: passes bindings by name: a name, a list of names [brief, findings], an object {brief, evidence: findings}, or [] for none")
			return
		}
		for _, f := range o.Fields {
			if f.Key == path {
				p.report(x.Pos(), "syntax/session-context", "%s is passed twice in the context", path)
				return
			}
		}
		o.Fields = append(o.Fields, p.a.fields.new(Field{KeyPos: x.Pos(), Key: path, Value: x}))
	}
	switch v := val.(type) {
	case *ObjectLit:
		return v
	case *ListLit:
		for _, e := range v.Elems {
			one(e)
		}
	default:
		one(v)
	}
	return o
}

// pathOf is the name path x is (`a`, `a.b`), or "".
func pathOf(x Expr) string {
	switch x := x.(type) {
	case *Ident:
		return x.Name
	case *MemberExpr:
		if s := pathOf(x.X); s != "" {
			return s + "." + x.Name
		}
	}
	return ""
}

// backoffStrategy is the backoff clause of `backoff: none|linear|
// exponential` (a word or a string): exponential waits 1s doubling,
// linear 1s each time, none not at all (nil), as a ProseScript call's
// modifier does.
func (p *parser) backoffStrategy(val Expr) *ObjectLit {
	name := ""
	switch v := val.(type) {
	case *Ident:
		name = v.Name
	case *StringLit:
		name = v.Value
	}
	at := val.Pos()
	mult := int64(2)
	switch name {
	case "none":
		return nil
	case "linear":
		mult = 1
	case "exponential":
	default:
		p.report(at, "syntax/session-backoff", "unknown backoff strategy: write backoff: none, linear or exponential")
		return nil
	}
	return p.a.objects.new(ObjectLit{Lbrace: at, Rbrace: at, Fields: []*Field{
		{KeyPos: at, Key: "initial", Value: &DurationLit{ValuePos: at, Raw: "1s", Value: time.Second}},
		{KeyPos: at, Key: "multiplier", Value: &NumberLit{ValuePos: at, Raw: strconv.FormatInt(mult, 10), IsInt: true, Int: mult, Float: float64(mult)}},
	}})
}

// isAgentStart reports whether an agent definition starts here: `agent
// NAME:`.
func (p *parser) isAgentStart() bool {
	return p.isWord("agent") && p.peek(1).kind == IDENT && p.peek(2).kind == COLON
}

// parseAgent parses an agent definition into p.agents; it is no
// statement.
//
//	agent_def  = 'agent' IDENT ':' NEWLINE INDENT { agent_prop } OUTDENT .
//	agent_prop = ( 'model' ':' ( IDENT | STRING ) | 'prompt' ':' STRING | 'persist' ':' expr
//	             | 'skills' ':' list ) NEWLINE
//	           | 'shape' ':' NEWLINE INDENT { ( 'self' | 'delegates' | 'prohibited' ) ':' texts NEWLINE } OUTDENT .
func (p *parser) parseAgent() {
	kw := p.advance()
	if p.depth > 0 {
		p.report(kw.pos, "syntax/agent", "an agent is defined at the top level of the block, not inside a statement")
	}
	a := &AgentDef{Agent: kw.pos, Name: p.parseIdent("after 'agent'")}
	p.expect(COLON, "after the agent's name")
	if p.tok().kind != NEWLINE || p.peek(1).kind != INDENT {
		p.errorf(p.tok().pos, "syntax/agent", "agent %s has no properties: write them below it, indented (prompt: \"...\", model: NAME)", a.Name.Name)
	}
	p.advance()
	ind := p.advance()
	p.enter(ind.pos)
	seen := map[string]bool{}
	for k := p.tok().kind; k != OUTDENT && k != EOF; k = p.tok().kind {
		key, val := p.parseProperty("agent", agentProps, seen)
		switch key.raw {
		case "model":
			a.Model, a.ModelPos = p.modelName(val)
		case "prompt":
			p.promptString(val, "an agent's prompt")
			if s, ok := val.(*StringLit); ok {
				if len(s.Parts) > 0 {
					p.report(s.ValuePos, "syntax/agent", "an agent's prompt is fixed text, the same for each of its sessions: pass values with a session's context: or its prompt")
				}
				a.Prompt = s
			}
		case "persist":
			a.Persist = val
		case "skills":
			a.Skills = val
		case "shape":
			a.Shape = p.parseShape(key)
		}
	}
	p.leave()
	p.expect(OUTDENT, "at the end of the agent's properties")
	p.agents = append(p.agents, a)
}

// parseShape parses the block of an agent's `shape:`, after its ':'.
func (p *parser) parseShape(key token) []ShapeItem {
	if p.tok().kind != NEWLINE || p.peek(1).kind != INDENT {
		p.errorf(key.pos, "syntax/agent-shape", "shape: is a block: self:, delegates: and prohibited: on the lines below it, indented")
	}
	p.advance()
	ind := p.advance()
	p.enter(ind.pos)
	var out []ShapeItem
	seen := map[string]bool{}
	for k := p.tok().kind; k != OUTDENT && k != EOF; k = p.tok().kind {
		t, val := p.parseProperty("shape", []string{"self", "delegates", "prohibited"}, seen)
		item := ShapeItem{KeyPos: t.pos, Key: t.raw}
		texts := []Expr{val}
		if l, ok := val.(*ListLit); ok {
			texts = l.Elems
		}
		for _, x := range texts {
			s, ok := x.(*StringLit)
			if !ok || len(s.Parts) > 0 {
				p.report(x.Pos(), "syntax/agent-shape", "a shape line holds fixed text: a string or a list of strings (%s: [\"research\", \"source evaluation\"])", t.raw)
				continue
			}
			item.Values = append(item.Values, s.Value)
		}
		out = append(out, item)
	}
	p.leave()
	p.expect(OUTDENT, "at the end of the agent's shape")
	return out
}
