package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/proselang/prose/delegation"
)

// Tool sessions.
//
// A render whose node declares tools (RenderInfo.Tools) is a session: the
// model is offered exactly the declared tools as OpenAI function tools,
// and each reply that asks for tool calls has them run and their results
// sent back in "tool" messages, until a reply without tool calls, which is
// the render's answer and is checked against the contract as a one-shot
// render's is.
//
// Every step of a session is a call of its own, made through the calling
// run's Caller (CallRequest.Host), so the journal records and answers each
// one by its path, as it does the calls of a nested spec. Under the
// render's attempt path P (the NestedScope: "L12", "L12#2"):
//
//   - model turn n is P>L<node line>/n (slot "model"), its arguments the
//     messages so far, its value the reply {"content", "tool_calls"};
//   - tool call k of turn n is P>L<declaration line>/n/k (slot "cli:jq",
//     "mcp:server"), its arguments {"tool", "arguments"}, its value what
//     the tool gave;
//   - a call of a tool that is not offered is P>L<node line>/n/k (slot
//     "refused"): it runs nothing, and its value is the refusal the model
//     reads.
//
// So a replay answers the render from the journal and runs nothing; a
// resume of a render killed mid-session answers its finished turns and
// tool calls from the journal and goes live from the first one that has
// no end. A tool that fails to run (it cannot start, it timed out) is
// reported to the model as {"error": ...}; the session goes on.
//
// Bounds (decided here): a session makes at most MaxTurns model requests
// (RenderInfo.MaxTurns, --max-turns; DefaultMaxTurns when 0); a model
// still calling tools at the bound fails the call with an error naming it.
// The call's deadline (its timeout clause, PROSE_MODEL_TIMEOUT per
// request) bounds it too.

// DefaultMaxTurns is the model requests a session may make when
// --max-turns does not say.
const DefaultMaxTurns = 16

// Tool is a function tool offered to a model.
type Tool struct {
	Name        string          // the function name the model calls
	Description string          // what it does, for the model
	Parameters  json.RawMessage // a JSON Schema of its arguments
	// Decl is the declaration it comes from ("cli:jq", "mcp:files");
	// Line that declaration's line in the .md, which its calls' paths
	// carry.
	Decl string
	Line int
}

// ToolCall is one call a model asked for.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text, as the model wrote it
}

// Toolbox is what a session's tools are, and how each one runs.
type Toolbox interface {
	// Tools lists the tools offered (starting servers as needed).
	Tools(ctx context.Context) ([]Tool, error)
	// Service runs the calls of the tool named name (one listed by Tools).
	// A call's arguments are {"tool": NAME, "arguments": VALUE}.
	Service(name string) Service
}

// Service is a step of a session the run's Caller can make: a
// delegation.Service with the Call that patterns' services have.
type Service interface {
	delegation.Service
	Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error)
}

// SessionError is a session stopped at one of its bounds.
type SessionError struct {
	Node, Pos string
	Bound     string // "--max-turns"
	Limit     int
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("%s: %s: the model was still calling tools after %d model requests (the session bound --max-turns=%d); raise --max-turns, or say in the contract when to stop", e.Pos, e.Node, e.Limit, e.Limit)
}

func openaiTools(ts []Tool) []openai.Tool {
	var out []openai.Tool
	for _, t := range ts {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out
}

func openaiCalls(cs []ToolCall) []openai.ToolCall {
	var out []openai.ToolCall
	for _, c := range cs {
		out = append(out, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	return out
}

func toolCalls(cs []openai.ToolCall) []ToolCall {
	var out []ToolCall
	for _, c := range cs {
		out = append(out, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out
}

// session runs a render as a tool session (see above).
func (s *RenderService) session(ctx context.Context, req *delegation.CallRequest, user string) (delegation.Value, error) {
	tools, err := s.info.Tools.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: listing its tools: %w", s.info.Pos, s.info.Name, err)
	}
	offered := map[string]Tool{}
	for _, t := range tools {
		offered[t.Name] = t
	}
	limit := s.info.MaxTurns
	if limit <= 0 {
		limit = DefaultMaxTurns
	}
	scope := req.NestedScope()
	msgs := []Message{{Role: "user", Content: user}}
	turn := &modelTurn{s: s, tools: tools, exchanged: req.Exchanged}
	for n := 1; n <= limit; n++ {
		v, err := s.step(ctx, req, scope.At(s.info.Line, n), turn, msgsValue(msgs))
		if err != nil {
			return nil, err
		}
		reply := decodeTurn(v)
		if len(reply.ToolCalls) == 0 {
			if reply.Truncated {
				return nil, fmt.Errorf("%s: the model's reply rendering %s was cut off at the output limit of %d tokens (finish_reason \"length\") after %d bytes: "+
					"raise PROSE_MAX_TOKENS if the answer is meant to be this long", s.info.Pos, s.info.Name, s.client.cfg.MaxTokens, len(reply.Content))
			}
			v, err := ParseReply(reply.Content)
			if err != nil {
				return nil, &ProtocolError{s.info.Name, s.info.Pos, err.Error()}
			}
			return CheckRender(s.info, v)
		}
		msgs = append(msgs, Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
		for k, c := range reply.ToolCalls {
			out, err := s.runTool(ctx, req, scope, offered, n, k+1, c)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, Message{Role: "tool", ToolCallID: c.ID, Content: out})
		}
	}
	return nil, &SessionError{Node: s.info.Name, Pos: s.info.Pos, Bound: "--max-turns", Limit: limit}
}

// runTool makes tool call k of turn n and returns the text the model
// reads: the tool's value as JSON, a refusal, or the error it failed with.
// Only a stopped context ends the session.
func (s *RenderService) runTool(ctx context.Context, req *delegation.CallRequest, scope delegation.Path, offered map[string]Tool, n, k int, c ToolCall) (string, error) {
	var argv delegation.Value = c.Arguments
	if v, err := delegation.FromJSON([]byte(c.Arguments)); err == nil {
		argv = v
	}
	args := delegation.NewObject()
	args.Set("tool", c.Name)
	args.Set("arguments", argv)
	args.Set("call_id", c.ID)
	t, ok := offered[c.Name]
	var svc Service
	path := scope.At(t.Line, n, k)
	if ok {
		svc = recorded{s.info.Tools.Service(c.Name), c.Name}
	} else {
		svc = refusal{offered: offered, node: s.info.Name}
		path = scope.At(s.info.Line, n, k)
	}
	v, err := s.step(ctx, req, path, svc, args)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		v = errorValue(err.Error())
	}
	b, jerr := delegation.ToJSON(v)
	if jerr != nil {
		return "", jerr
	}
	return string(b), nil
}

func errorValue(msg string) delegation.Value {
	o := delegation.NewObject()
	o.Set("error", msg)
	return o
}

// step makes one journaled step of the session: through the calling run's
// Caller when there is one (the journal's), else directly.
func (s *RenderService) step(ctx context.Context, req *delegation.CallRequest, path delegation.Path, svc Service, args *delegation.Object) (delegation.Value, error) {
	sub := &delegation.CallRequest{Path: path, Service: svc, Args: args, Attempt: 1, Pos: req.Pos, Host: req.Host, Spawned: req.Spawned}
	if req.Host != nil && req.Host.Caller != nil {
		return req.Host.Caller.Call(ctx, sub)
	}
	return svc.Call(ctx, sub)
}

// recorded is a tool's service that tells the run's recorders of each
// call it runs (EventToolCall): only live calls reach it, the journal
// answers the others.
type recorded struct {
	Service
	name string
}

func (r recorded) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	start := time.Now()
	v, err := r.Service.Call(ctx, req)
	if req.Host != nil && req.Host.Recorder != nil {
		req.Host.Recorder.Record(&delegation.Event{Kind: delegation.EventToolCall, Time: time.Now(), Path: req.Path,
			Slot: r.name, Attempt: req.Attempt, Args: req.Args, Result: v, Err: err, Duration: time.Since(start)})
	}
	return v, err
}

// refusal answers a call of a tool the session does not offer.
type refusal struct {
	offered map[string]Tool
	node    string
}

func (refusal) ServiceName() string { return "refused" }

func (r refusal) Call(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	name, _ := req.Args.Get("tool")
	var names []string
	for n := range r.offered {
		names = append(names, n)
	}
	sort.Strings(names)
	return errorValue(fmt.Sprintf("refused: %v is not a tool of %s; it was not run. The tools you may call are: %s", name, r.node, strings.Join(names, ", "))), nil
}

// modelTurn is the service of a session's model requests.
type modelTurn struct {
	s         *RenderService
	tools     []Tool
	exchanged func(delegation.Exchange)
}

func (*modelTurn) ServiceName() string { return "model" }

// Call sends the messages of its arguments, with the tools, and returns
// the reply as a value: {"content", "tool_calls": [{"id", "name",
// "arguments"}], "truncated"}.
func (t *modelTurn) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	m, _ := req.Args.Get("messages")
	msgs := messagesOf(m)
	start := time.Now()
	// A turn is a model acting for a node, as a one-shot render is: the
	// slot cap (PROSE_MAX_TOKENS), not a verdict's.
	cr := ChatRequest{Model: t.s.info.Model, System: t.s.system,
		Messages: msgs, Schema: t.s.schema, Tools: t.tools, MaxTokens: t.s.client.cfg.MaxTokens}
	reply, err := t.s.client.Chat(ctx, cr)
	if t.exchanged != nil {
		prompt, _ := delegation.ToJSON(m)
		answer := reply.Content
		if len(reply.ToolCalls) > 0 {
			b, _ := json.Marshal(reply.ToolCalls)
			answer += string(b)
		}
		x := ExchangeOf(cr, firstNonEmpty(t.s.info.Model, t.s.client.Model()), reply, err, start)
		x.System, x.Prompt, x.Reply = t.s.system, string(prompt), answer
		t.exchanged(x)
	}
	if err != nil {
		return nil, stopped(ctx, err)
	}
	out := delegation.NewObject()
	out.Set("content", reply.Content)
	calls := delegation.NewList()
	for _, c := range reply.ToolCalls {
		o := delegation.NewObject()
		o.Set("id", c.ID)
		o.Set("name", c.Name)
		o.Set("arguments", c.Arguments)
		calls.Append(o)
	}
	out.Set("tool_calls", calls)
	if reply.Truncated {
		out.Set("truncated", true)
	}
	return out, nil
}

// decodeTurn reads a model turn's value back (live or from the journal).
func decodeTurn(v delegation.Value) ChatReply {
	var r ChatReply
	o, ok := v.(*delegation.Object)
	if !ok {
		return r
	}
	if c, ok := o.Get("content"); ok {
		r.Content, _ = c.(string)
	}
	if t, ok := o.Get("truncated"); ok {
		r.Truncated, _ = t.(bool)
	}
	if l, ok := o.Get("tool_calls"); ok {
		if list, ok := l.(*delegation.List); ok {
			for _, e := range list.Elems() {
				co, _ := e.(*delegation.Object)
				if co == nil {
					continue
				}
				r.ToolCalls = append(r.ToolCalls, ToolCall{ID: str(co, "id"), Name: str(co, "name"), Arguments: str(co, "arguments")})
			}
		}
	}
	return r
}

func str(o *delegation.Object, k string) string {
	v, _ := o.Get(k)
	s, _ := v.(string)
	return s
}

// msgsValue is a session's messages as a call's arguments.
func msgsValue(msgs []Message) *delegation.Object {
	list := delegation.NewList()
	for _, m := range msgs {
		o := delegation.NewObject()
		o.Set("role", m.Role)
		o.Set("content", m.Content)
		if m.ToolCallID != "" {
			o.Set("tool_call_id", m.ToolCallID)
		}
		if len(m.ToolCalls) > 0 {
			calls := delegation.NewList()
			for _, c := range m.ToolCalls {
				co := delegation.NewObject()
				co.Set("id", c.ID)
				co.Set("name", c.Name)
				co.Set("arguments", c.Arguments)
				calls.Append(co)
			}
			o.Set("tool_calls", calls)
		}
		list.Append(o)
	}
	args := delegation.NewObject()
	args.Set("messages", list)
	return args
}

// messagesOf reads msgsValue's list back.
func messagesOf(v delegation.Value) []Message {
	list, _ := v.(*delegation.List)
	if list == nil {
		return nil
	}
	var out []Message
	for _, e := range list.Elems() {
		o, _ := e.(*delegation.Object)
		if o == nil {
			continue
		}
		m := Message{Role: str(o, "role"), Content: str(o, "content"), ToolCallID: str(o, "tool_call_id")}
		m.ToolCalls = decodeTurn(o).ToolCalls
		out = append(out, m)
	}
	return out
}
