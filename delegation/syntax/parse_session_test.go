package syntax

import (
	"strings"
	"testing"
)

// A session is written as a call of its hidden name, its prompt and
// context its arguments, retry and backoff its clauses.
func TestParseSessions(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"one-off", `session "Summarize {topic}"`,
			`(call session "Summarize {topic}" (arg prompt "Summarize {topic}"))`},
		{"let of a one-off", "let s = session \"Sum\"\n  context: topic",
			`(let s (call session "Sum" (arg prompt "Sum") (arg context (object (topic topic)))))`},
		{"multi-line prompt", "session \"\"\"Sum\nup\"\"\"",
			`(call session """Sum... (arg prompt "Sum\nup"))`},
		{"agent written tight", "session:critic\n  prompt: \"p\"", `(call session:critic (arg prompt "p"))`},
		{"agent", "let f = session: researcher\n  prompt: \"Research {topic}\"",
			`(let f (call session: researcher (arg prompt "Research {topic}")))`},
		{"label", "session review: critic\n  prompt: \"Review\"",
			`(call session review: critic (arg prompt "Review"))`},
		{"context list", "session \"x\"\n  context: [brief, r.score]",
			`(call session "x" (arg prompt "x") (arg context (object (brief brief) ("r.score" (. r score)))))`},
		{"context object", "session \"x\"\n  context: { brief, evidence: findings }",
			`(call session "x" (arg prompt "x") (arg context (object (brief brief) (evidence findings))))`},
		{"context none", "session \"x\"\n  context: []",
			`(call session "x" (arg prompt "x") (arg context (object)))`},
		{"model word", "session \"x\"\n  model: sonnet",
			`(call session "x" (model sonnet) (arg prompt "x"))`},
		{"model string", "session \"x\"\n  model: \"gpt-4o-mini\"",
			`(call session "x" (model gpt-4o-mini) (arg prompt "x"))`},
		{"retry and backoff", "session \"x\"\n  retry: 2\n  backoff: exponential",
			`(call session "x" (arg prompt "x") (retries 2) (backoff (object (initial 1s) (multiplier 2))))`},
		{"backoff none", "session \"x\"\n  retry: 2\n  backoff: \"none\"",
			`(call session "x" (arg prompt "x") (retries 2))`},
		{"session as a name", "let session = 1\nsession = session + 1\nreturn session.x",
			"(let session 1)\n(= session (+ session 1))\n(return (. session x))"},
		{"agent as a name", "let agent = 1\nagent = 2", "(let agent 1)\n(= agent 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := parseOK(t, tt.code)
			if got := Dump(prog); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			for _, c := range prog.Calls() {
				id := c.Target.(*Ident)
				if c.Session == nil || !strings.HasPrefix(c.Session.Name, id.Name) || c.Session.Model != "" && c.Session.Name != id.Name+" (model "+c.Session.Model+")" {
					t.Errorf("target %q, session %+v", id.Name, c.Session)
				}
			}
		})
	}
}

// An agent definition is no statement: it is listed in Program.Agents,
// with its prompt, model and shape.
func TestParseAgent(t *testing.T) {
	prog := parseOK(t, `agent researcher:
  model: sonnet
  prompt: "Research thoroughly."
  persist: false
  skills: []
  shape:
    self: ["research", "source evaluation"]
    prohibited: "writing files"
let f = session: researcher
  prompt: "Go"
`)
	if got := Dump(prog); got != `(let f (call session: researcher (arg prompt "Go")))` {
		t.Errorf("body: %s", got)
	}
	a := prog.Agent("researcher")
	if a == nil || len(prog.Agents) != 1 {
		t.Fatalf("agents: %v", prog.Agents)
	}
	if a.Model != "sonnet" || a.Prompt == nil || a.Prompt.Value != "Research thoroughly." || a.Persist == nil || a.Skills == nil {
		t.Errorf("agent: %+v", a)
	}
	var shape []string
	for _, it := range a.Shape {
		shape = append(shape, it.Key+"="+strings.Join(it.Values, "|"))
	}
	if got := strings.Join(shape, " "); got != "self=research|source evaluation prohibited=writing files" {
		t.Errorf("shape: %s", got)
	}
	if prog.Agent("writer") != nil {
		t.Error("an agent nobody defined")
	}
}

// Each mistake in a session or an agent is one error at its token, and
// the rest still parses.
func TestParseSessionErrors(t *testing.T) {
	tests := []struct{ name, code, want, msg string }{
		{"unknown property", "session \"x\"\n  topic: t", "2:3 [syntax/session-property]", "a session takes prompt, model, context, retry, backoff"},
		{"duplicate property", "session \"x\"\n  context: a\n  context: b", "3:3 [syntax/duplicate-property]", "duplicate property 'context'"},
		{"prompt twice", "session \"x\"\n  prompt: \"y\"", "2:3 [syntax/session-property]", "written twice"},
		{"no prompt", "session: critic\n  context: a", "1:1 [syntax/session-prompt]", "has no prompt"},
		{"prompt not text", "session: critic\n  prompt: p", "2:11 [syntax/session-property]", "is a string"},
		{"computed model", "session \"x\"\n  model: cfg.model", "2:10 [syntax/session-model]", "cannot be computed"},
		{"model that reads as a subtraction", "session \"x\"\n  model: gpt-4o\n  context: a", "2:10 [syntax/session-model]", "model: \"gpt-4o-mini\""},
		{"agent model of two words", "agent a:\n  model: big model\n  prompt: \"p\"", "2:10 [syntax/session-model]", "one word or as a string"},
		{"interpolated model", "session \"x\"\n  model: \"{m}\"", "2:10 [syntax/session-model]", "cannot be computed"},
		{"context of a call", "session \"x\"\n  context: [\"text\"]", "2:13 [syntax/session-context]", "passes bindings by name"},
		{"context twice", "session \"x\"\n  context: [a, a]", "2:16 [syntax/session-context]", "a is passed twice"},
		{"unknown backoff", "session \"x\"\n  retry: 1\n  backoff: fast", "3:12 [syntax/session-backoff]", "none, linear or exponential"},
		{"unknown agent property", "agent a:\n  tools: []\n  prompt: \"p\"", "2:3 [syntax/agent-property]", "an agent takes model, prompt, persist, skills, shape"},
		{"duplicate agent property", "agent a:\n  prompt: \"p\"\n  prompt: \"q\"", "3:3 [syntax/duplicate-property]", "duplicate property 'prompt' in the agent"},
		{"invalid shape property", "agent a:\n  shape:\n    owns: [\"x\"]", "3:5 [syntax/shape-property]", "a shape takes self, delegates, prohibited"},
		{"shape of names", "agent a:\n  shape:\n    self: [research]", "3:12 [syntax/agent-shape]", "fixed text"},
		{"interpolated agent prompt", "agent a:\n  prompt: \"For {topic}\"", "2:11 [syntax/agent]", "fixed text"},
		{"nested agent", "if x:\n  agent a:\n    prompt: \"p\"", "2:3 [syntax/agent]", "top level"},
		{"agent without properties", "agent a:\nlet y = 1", "1:9 [syntax/agent]", "has no properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := ParseString("t.prose", tt.code)
			if len(errs) != 1 {
				t.Fatalf("code:\n%s\nwant exactly one diagnostic, got %d:\n%s", tt.code, len(errs), errs)
			}
			d := errs[0]
			got := strings.TrimPrefix(d.Position.String(), "t.prose:") + " [" + d.Code + "]"
			if got != tt.want || !strings.Contains(d.Message, tt.msg) {
				t.Errorf("code:\n%s\ngot  %s %s\nwant %s, a message with %q", tt.code, got, d.Message, tt.want, tt.msg)
			}
		})
	}
}

func init() {
	fuzzSeeds = append(fuzzSeeds,
		"agent r:\n  model: sonnet\n  prompt: \"p\"\n  persist: false\n  skills: []\n  shape:\n    self: [\"a\", \"b\"]\n    prohibited: \"c\"\nlet f = session: r\n  prompt: \"Research {topic}\"\n  context: topic\n  retry: 2\n  backoff: exponential\n",
		"let s = session \"x {a.b}\"\n  context: [a, a.b]\n  model: \"m\"\nsession l: r\n  context: {a, k: v}\n  prompt: \"y\"\n  backoff: none\nreturn session \"z\"\n  context: []\n",
		"session: \nsession \"x\"\n  topic: 1\n  context: [1]\nagent a:\nagent b:\n  shape:\n    owns: 1\n",
	)
}
