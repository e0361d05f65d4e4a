package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
)

// Subagents.
//
// A ProseScript session (`session "PROMPT"`, `session: AGENT`) is a
// one-off model call, made through the run's call path as any call is
// (journaled, replayed, budgeted). A Subagent answers it: one request
// whose system prompt says what a session is and carries the agent's
// prompt and shape, and whose user message is the session's prompt
// followed, when the session passes a context, by that context as one
// compact JSON object keyed by the names passed. Decided: the value is
// the reply as text, trimmed, never parsed as JSON (a reply that looks
// like JSON is still text): a script that wants structured values calls
// a function that declares its ### Returns. A reply cut at the output
// limit, empty, or larger than MaxSlotReplyBytes is an error, so the
// session's retry applies.

// SubagentInfo describes the sessions a Subagent answers, taken from the
// script by the caller.
type SubagentInfo struct {
	// Name is how the session prints (`session: researcher`).
	Name string
	// Agent is the agent's name ("" for `session "PROMPT"`), Prompt its
	// prompt (the system prompt's instructions), Shape its shape as
	// lines (`self: research`, `prohibited: writing files`).
	Agent  string
	Prompt string
	Shape  []string
	// Model overrides the client's model ("" for its own).
	Model string
}

// Subagent answers the sessions of one agent (or the one-off sessions
// of a script) with a model.
type Subagent struct {
	client *Client
	info   SubagentInfo
	system string
}

// NewSubagent returns the service of info on c.
func NewSubagent(c *Client, info SubagentInfo) *Subagent {
	return &Subagent{client: c, info: info, system: SubagentSystemPrompt(info)}
}

// ServiceName implements delegation.Service.
func (s *Subagent) ServiceName() string { return s.info.Name }

// Call sends the session's request: its arguments are `prompt` (text)
// and `context` (an object, or absent).
func (s *Subagent) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	user, err := SubagentUserMessage(req.Args, s.client.cfg.MaxValueBytes)
	if err != nil {
		return nil, err
	}
	reply, err := s.client.ask(ctx, s.info.Model, s.system, user, req)
	if err != nil {
		return nil, stopped(ctx, err)
	}
	text := strings.TrimSpace(s.client.Redact(reply.Content))
	switch {
	case reply.Truncated:
		return nil, fmt.Errorf("the model's reply was cut off at the output limit of %d tokens (finish_reason \"length\") after %d bytes: "+
			"raise PROSE_MAX_TOKENS if the answer is meant to be this long", s.client.maxTokens(ChatRequest{}), len(reply.Content))
	case len(text) > MaxSlotReplyBytes:
		return nil, fmt.Errorf("the model's reply is %d bytes, over the %d a session accepts", len(text), MaxSlotReplyBytes)
	case text == "" && reply.Thinking != "":
		return nil, errors.New("the model returned only its reasoning (<think>), no answer")
	case text == "":
		return nil, errors.New("the model returned an empty reply")
	}
	return text, nil
}

// SubagentSystemPrompt is the system prompt of info's sessions.
func SubagentSystemPrompt(info SubagentInfo) string {
	var b strings.Builder
	b.WriteString("You carry out one task of a workflow run by a program, as a one-off subagent")
	if info.Agent != "" {
		fmt.Fprintf(&b, " of the agent %q", info.Agent)
	}
	b.WriteString(". The user message is the task. When it ends with \"Context (JSON):\", the JSON object after that line holds the values the task refers to, by name. " +
		"Reply with your answer only, as plain text, without commentary about the task.")
	if p := strings.TrimSpace(info.Prompt); p != "" {
		b.WriteString("\n\nYour instructions:\n")
		b.WriteString(p)
	}
	if len(info.Shape) > 0 {
		b.WriteString("\n\nYour boundaries (self: what you do; delegates: what you leave to others; prohibited: what you never do):")
		for _, l := range info.Shape {
			b.WriteString("\n- ")
			b.WriteString(l)
		}
	}
	return b.String()
}

// SubagentUserMessage is the user message of a session: its prompt,
// then, when the context holds any value, "Context (JSON):" and the
// context as compact JSON, each value bounded by limit bytes as a slot's
// arguments are (BoundedUserMessage).
func SubagentUserMessage(args *delegation.Object, limit int) (string, error) {
	var prompt string
	var ctxv *delegation.Object
	if args != nil {
		p, _ := args.Get("prompt")
		s, ok := p.(string)
		if !ok {
			return "", fmt.Errorf("a session's prompt is text, not %s", delegation.TypeName(p))
		}
		prompt = s
		if c, ok := args.Get("context"); ok {
			if ctxv, ok = c.(*delegation.Object); !ok {
				return "", fmt.Errorf("a session's context is an object of the values passed, not %s", delegation.TypeName(c))
			}
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", errors.New("a session's prompt is empty: there is no task to send")
	}
	if ctxv == nil || ctxv.Len() == 0 {
		return prompt, nil
	}
	var cut []string
	bounded := delegation.NewObject()
	for _, k := range ctxv.Keys() {
		v, _ := ctxv.Get(k)
		v, err := boundValue(k, v, limit, &cut)
		if err != nil {
			return "", err
		}
		bounded.Set(k, v)
	}
	raw, err := delegation.ToJSON(bounded)
	if err != nil {
		return "", fmt.Errorf("encoding the session's context: %w", err)
	}
	return prompt + "\n\nContext (JSON):\n" + string(raw), nil
}
