package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"

	openai "github.com/sashabaranov/go-openai"
)

// Client talks to an OpenAI-compatible Chat Completions server. It is safe
// for concurrent use and counts its usage in a Meter.
type Client struct {
	cfg   Config
	oc    openai.ClientConfig // each call gets a client of its own (callTransport)
	meter *Meter
	tr    *transport
	// Set once a server has rejected a parameter, so later requests leave
	// it out instead of failing first.
	noSchema      atomic.Bool
	noTemperature atomic.Bool
	// tokenParam is how the output cap is sent (see tokenParam).
	tokenParam atomic.Int32
}

// How a request carries its output token cap.
const (
	capUnset               int32 = iota // not decided yet: by server and model
	capMaxTokens                        // "max_tokens"
	capMaxCompletionTokens              // "max_completion_tokens"
	capNone                             // neither: the server refused both
)

// NewClient returns a client for cfg, or an error when cfg cannot work
// (no model, a bad base URL). base is the HTTP transport under the retry
// layer; nil means a clone of http.DefaultTransport, which takes a proxy
// from HTTPS_PROXY, HTTP_PROXY and NO_PROXY.
func NewClient(cfg Config, base http.RoundTripper) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	var query string
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	c := &Client{cfg: cfg, meter: &Meter{}}
	oc := openai.DefaultConfig(cfg.APIKey)
	// go-openai appends the endpoint's path to the base URL as a string,
	// which would put it after a query (?api-version=...): the query is
	// kept apart and added to each request by the transport.
	oc.BaseURL, query = splitQuery(cfg.baseURL())
	c.tr = &transport{base: base, cfg: cfg, meter: c.meter, query: query}
	c.oc = oc
	return c, nil
}

// splitQuery cuts the query (and any fragment) off a base URL.
func splitQuery(base string) (string, string) {
	base, _, _ = strings.Cut(base, "#")
	base, query, _ := strings.Cut(base, "?")
	return strings.TrimRight(base, "/"), query
}

// Model is the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// ActingMaxTokens is the output cap of a model acting for a node (a slot,
// a render): PROSE_MAX_TOKENS, not the cap of a verdict, although a
// render asks for a schema too. A render made outside a RenderService
// (a world model's) sends it to ask what a RenderService asks.
func (c *Client) ActingMaxTokens() int { return c.cfg.MaxTokens }

// Meter is the client's usage accumulator.
func (c *Client) Meter() *Meter { return c.meter }

// Usage is a snapshot of the client's usage so far.
func (c *Client) Usage() Usage { return c.meter.Snapshot() }

// Redact removes the client's secrets (API key, base URL credentials)
// from s (package redact).
func (c *Client) Redact(s string) string { return c.cfg.redact(s) }

// Message is one chat turn: Role is "user", "assistant" or "tool". An
// assistant turn of a tool session may carry ToolCalls; a "tool" turn
// answers the call ToolCallID (see session.go).
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
}

// Schema asks for a structured reply: Name names it, JSON is a JSON Schema.
type Schema struct {
	Name string
	JSON json.RawMessage
	// Loose asks for the schema without OpenAI's strict mode, which takes
	// only fully typed schemas with an object at the root: a render's
	// outputs may be any JSON value, and its declared errors make the root
	// a choice of two objects. Servers that enforce schemas by grammar
	// (llama.cpp, vLLM) read either the same way.
	Loose bool
}

// ChatRequest is one question to the model.
type ChatRequest struct {
	Model    string // "" means the client's model
	System   string
	Messages []Message
	Schema   *Schema // nil: a free-text reply
	// Temperature overrides Config.Temperature for this request.
	Temperature *float64
	// MaxTokens caps the reply's tokens; 0 means the client's cap for the
	// request's kind: Config.JudgeMaxTokens when a Schema is asked for (a
	// verdict), Config.MaxTokens otherwise.
	MaxTokens int
	// Tools are the function tools the model is offered (none: a plain
	// completion).
	Tools []Tool
}

// ChatReply is the model's answer.
type ChatReply struct {
	Content   string
	Model     string
	TokensIn  int
	TokensOut int
	Attempts  int // HTTP attempts of the last request
	// Structured is true when the server honoured the Schema; false after
	// a fallback to plain JSON instructions (parse the reply tolerantly).
	Structured bool
	// FinishReason is the server's finish_reason ("stop", "length"...).
	FinishReason string
	// Truncated is true when the reply was cut at the output token limit
	// (finish_reason "length"): a JSON reply is then incomplete.
	Truncated bool
	// Thinking is a reasoning model's <think> block, removed from Content.
	Thinking string
	// ToolCalls are the tools the model asked to run, in order.
	ToolCalls []ToolCall
	// ID is the completion's id, as the server gave it ("" when none).
	ID string
	// Temperature and MaxTokens are what the last request sent: nil when
	// it sent no temperature (a server that refuses one), 0 when it sent
	// no output cap. They are set also when the request failed.
	Temperature *float64
	MaxTokens   int
}

// Chat asks the model once (with the transport's retries), within one
// deadline for the whole call (Config.Timeout). A server that rejects
// response_format gets the schema as instructions instead; one that
// rejects temperature gets requests without it; one that rejects
// max_tokens gets max_completion_tokens, and the other way round.
func (c *Client) Chat(ctx context.Context, r ChatRequest) (ChatReply, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	for tries := 0; ; tries++ {
		useSchema := r.Schema != nil && !c.noSchema.Load()
		capParam := c.capParam(r)
		reply, err := c.send(callCtx, r, useSchema, capParam)
		if err != nil && ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
			return reply, c.outOfTime(reply.Attempts)
		}
		if err == nil || tries >= 4 {
			return reply, err
		}
		switch {
		case useSchema && rejects(err, "response_format", "json_schema", "structured output"):
			c.noSchema.Store(true)
		case !c.noTemperature.Load() && rejects(err, "temperature"):
			c.noTemperature.Store(true)
		case capParam == capMaxTokens && rejectsWord(err, "max_tokens"):
			c.tokenParam.Store(capMaxCompletionTokens)
		case capParam == capMaxCompletionTokens && rejectsWord(err, "max_completion_tokens"):
			c.tokenParam.Store(capNone)
		default:
			return reply, err
		}
	}
}

// outOfTime is the error of a call whose deadline passed.
func (c *Client) outOfTime(attempts int) error {
	tries := fmt.Sprintf("%d %s", attempts, plural(int64(attempts), "attempt", "attempts"))
	return &Error{Attempts: attempts, Message: fmt.Sprintf(
		"no reply from the model server at %s within %s (%s; the limit is for the whole call, retries included); raise PROSE_MODEL_TIMEOUT, lower PROSE_MAX_TOKENS, or check the server",
		c.cfg.displayURL(), c.cfg.Timeout, tries)}
}

// capParam is how r's output cap is sent: as the server took it before,
// else max_completion_tokens for OpenAI's own API and for the reasoning
// models whose names go-openai refuses max_tokens for, else max_tokens,
// which every other OpenAI-compatible server reads.
func (c *Client) capParam(r ChatRequest) int32 {
	if p := c.tokenParam.Load(); p != capUnset {
		return p
	}
	model := firstNonEmpty(r.Model, c.cfg.Model)
	// go-openai's validator knows which model names refuse max_tokens.
	//lint:ignore SA1019 asking whether max_tokens would be refused
	probe := openai.ChatCompletionRequest{Model: model, MaxTokens: 1}
	if c.cfg.officialAPI() || openai.NewReasoningValidator().Validate(probe) != nil {
		return capMaxCompletionTokens
	}
	return capMaxTokens
}

// maxTokens is r's output cap (see ChatRequest.MaxTokens).
func (c *Client) maxTokens(r ChatRequest) int {
	switch {
	case r.MaxTokens > 0:
		return r.MaxTokens
	case r.Schema != nil:
		return c.cfg.JudgeMaxTokens
	}
	return c.cfg.MaxTokens
}

// rejectsWord is rejects for a parameter name that must appear as itself
// (max_tokens, not as a part of max_completion_tokens' neighbours).
func rejectsWord(err error, word string) bool {
	var e *Error
	if !errors.As(err, &e) || (e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity) {
		return false
	}
	return strings.Contains(strings.ToLower(e.Detail), word)
}

func (c *Client) send(ctx context.Context, r ChatRequest, useSchema bool, capParam int32) (ChatReply, error) {
	model := r.Model
	if model == "" {
		model = c.cfg.Model
	}
	req := openai.ChatCompletionRequest{Model: model, Messages: c.messages(r, useSchema)}
	switch capParam {
	case capMaxTokens:
		// Deprecated by OpenAI, whose API gets max_completion_tokens
		// (capParam); the field every other compatible server reads.
		//lint:ignore SA1019 servers other than OpenAI's read max_tokens
		req.MaxTokens = c.maxTokens(r)
	case capMaxCompletionTokens:
		req.MaxCompletionTokens = c.maxTokens(r)
	}
	if useSchema {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: r.Schema.Name, Schema: r.Schema.JSON, Strict: !r.Schema.Loose,
			},
		}
	}
	req.Tools = openaiTools(r.Tools)
	if c.cfg.APIKey == "" && c.cfg.officialAPI() {
		return ChatReply{}, &Error{permanent: true, Message: c.cfg.noKeyMessage()}
	}
	ci := &callInfo{}
	if !c.noTemperature.Load() {
		t := c.cfg.Temperature
		if r.Temperature != nil {
			t = *r.Temperature
		}
		ci.temperature = &t
		req.Temperature = float32(t) // omitted by go-openai when 0; the transport puts it back
	}
	maxTokens := 0
	if capParam != capNone {
		maxTokens = c.maxTokens(r)
	}
	oc := c.oc
	oc.HTTPClient = &http.Client{Transport: callTransport{c.tr, ci}}
	resp, err := openai.NewClientWithConfig(oc).CreateChatCompletion(ctx, req)
	if err != nil {
		return ChatReply{Attempts: ci.attempts, Temperature: ci.temperature, MaxTokens: maxTokens}, c.describe(ctx, err, ci, model)
	}
	c.meter.addCall(resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	reply, err := c.reply(resp, ci, model, useSchema)
	reply.ID, reply.Temperature, reply.MaxTokens = resp.ID, ci.temperature, maxTokens
	return reply, err
}

// reply reads a completion: its first choice, the thinking split off, a
// refusal or filtered reply turned into an error.
func (c *Client) reply(resp openai.ChatCompletionResponse, ci *callInfo, model string, useSchema bool) (ChatReply, error) {
	if len(resp.Choices) == 0 {
		return ChatReply{Attempts: ci.attempts}, &Error{Status: ci.lastStatus, Attempts: ci.attempts,
			Message: fmt.Sprintf("the reply of the model server at %s has no choices (not a Chat Completions reply); check --base-url/OPENAI_BASE_URL", c.cfg.displayURL())}
	}
	ch := resp.Choices[0]
	reply := ChatReply{
		Model:        firstNonEmpty(resp.Model, model),
		TokensIn:     resp.Usage.PromptTokens,
		TokensOut:    resp.Usage.CompletionTokens,
		Attempts:     ci.attempts,
		Structured:   useSchema,
		FinishReason: string(ch.FinishReason),
		Truncated:    ch.FinishReason == openai.FinishReasonLength,
	}
	reply.Content, reply.Thinking = splitThinking(messageText(ch.Message))
	reply.ToolCalls = toolCalls(ch.Message.ToolCalls)
	if strings.TrimSpace(reply.Content) == "" && len(reply.ToolCalls) == 0 {
		if err := c.withheld(ch, ci); err != nil {
			return reply, err
		}
	}
	return reply, nil
}

// messageText is a reply message's text. Some servers and proxies (Mistral's
// reasoning models, gateways in front of other APIs) give the content as
// a list of parts, [{"type": "text", "text": ...}], as a request may: the
// text parts are joined in order, and parts of other types (images,
// thinking blocks) are left out.
func messageText(m openai.ChatCompletionMessage) string {
	if m.Content != "" || len(m.MultiContent) == 0 {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// withheld explains an empty reply that the server says why it did not
// give: a refusal or a content filter. Neither is retried.
func (c *Client) withheld(ch openai.ChatCompletionChoice, ci *callInfo) error {
	e := &Error{Status: ci.lastStatus, Attempts: ci.attempts, permanent: true}
	switch {
	case strings.TrimSpace(ch.Message.Refusal) != "":
		e.Message = "the model refused to answer"
		e.Detail = c.cfg.redact(excerpt(ch.Message.Refusal, 300))
	case ch.FinishReason == openai.FinishReasonContentFilter:
		e.Message = "the model server's content filter withheld the reply"
	default:
		return nil
	}
	return e
}

// thinkingTags are the tags reasoning models put their thoughts in,
// before the answer.
var thinkingTags = []string{"think", "thinking", "reasoning"}

// splitThinking separates a reasoning model's leading <think>...</think>
// block (or, as some chat templates give it, the thoughts ended by a lone
// </think>) from the answer after it. A reply cut off while thinking has
// an empty answer.
func splitThinking(s string) (answer, thinking string) {
	t := strings.TrimLeft(s, " \t\r\n")
	for _, tag := range thinkingTags {
		open, end := "<"+tag+">", "</"+tag+">"
		i := strings.Index(t, end)
		switch {
		case strings.HasPrefix(t, open) && i < 0:
			return "", t[len(open):]
		case strings.HasPrefix(t, open):
			return strings.TrimSpace(t[i+len(end):]), strings.TrimSpace(t[len(open):i])
		case i >= 0 && !strings.Contains(t[:i], "<"):
			return strings.TrimSpace(t[i+len(end):]), strings.TrimSpace(t[:i])
		}
	}
	return s, ""
}

func (c *Client) messages(r ChatRequest, useSchema bool) []openai.ChatCompletionMessage {
	system := r.System
	if r.Schema != nil && !useSchema {
		system += "\n\nReply with only one JSON object, no prose and no code fence, matching this JSON Schema:\n" +
			string(r.Schema.JSON)
	}
	var out []openai.ChatCompletionMessage
	if strings.TrimSpace(system) != "" {
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	for _, m := range r.Messages {
		role := m.Role
		if role == "" {
			role = openai.ChatMessageRoleUser
		}
		out = append(out, openai.ChatCompletionMessage{Role: role, Content: m.Content,
			ToolCalls: openaiCalls(m.ToolCalls), ToolCallID: m.ToolCallID})
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// rejects reports whether err is a 400 (or 422, as servers built on
// FastAPI answer, or a 5xx naming a parameter, as some llama.cpp servers
// answer) whose message mentions one of words.
func rejects(err error, words ...string) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch {
	case e.Status == http.StatusBadRequest, e.Status == http.StatusUnprocessableEntity:
	case e.Status >= 500 && mentions(e.Detail, parameterWords...):
	default:
		return false
	}
	return mentions(e.Detail, words...)
}

// refused reports a connection the server's host refused: nothing
// listens at the base URL's port, which asking again does not change (a
// server still starting up is better waited for by its user than by four
// backed-off retries that end with the same message).
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// Error is a failed model request, with a message that says what to fix.
// It never contains the API key.
type Error struct {
	Status   int // HTTP status of the last attempt; 0 when none came
	Attempts int
	Message  string // what happened and what to fix
	Detail   string // the server's own message, if any (redacted)
	cause    error
	// permanent marks a failure that asking again does not cure (a
	// refusal).
	permanent bool
}

func (e *Error) Error() string {
	if e.Detail != "" && !strings.Contains(e.Message, e.Detail) {
		return e.Message + ": " + e.Detail
	}
	return e.Message
}

// Unwrap gives the underlying context error, if that was the cause.
func (e *Error) Unwrap() error { return e.cause }

// Retryable reports whether a later call might succeed (the transport has
// already retried; a slot's own `retries` may try again).
func (e *Error) Retryable() bool {
	if e.permanent {
		return false
	}
	switch e.Status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusForbidden,
		http.StatusNotFound, http.StatusUnprocessableEntity:
		return false
	}
	return true
}

// describe turns a go-openai error into an *Error saying what to fix.
func (c *Client) describe(ctx context.Context, err error, ci *callInfo, model string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e := &Error{Status: ci.lastStatus, Attempts: ci.attempts}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		e.cause = err
	}
	// A RequestError may wrap an empty APIError (a body whose "error" is
	// a string): the outer error, and the transport's reading of the
	// body (callInfo.detail), are what tell status and message.
	var api *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr):
		e.Status, e.Detail = reqErr.HTTPStatusCode, excerpt(string(reqErr.Body), 200)
	case errors.As(err, &api):
		e.Status, e.Detail = api.HTTPStatusCode, api.Message
	default:
		e.Detail = err.Error()
	}
	if e.Status == 0 {
		e.Status = ci.lastStatus
	}
	if ci.detail != "" && e.Status >= 400 {
		e.Detail = ci.detail
	}
	e.Detail = c.cfg.redact(e.Detail)
	e.Message = c.cfg.redact(c.explain(e, err, ci, model))
	return e
}
