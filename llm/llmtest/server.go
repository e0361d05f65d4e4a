// Package llmtest is an in-process Chat Completions server with scripted
// replies, for tests of model clients, judges and model-backed slots that
// must not touch the network.
//
// NewServer starts one for a Go test: its URL (ending in /v1) goes into
// OPENAI_BASE_URL or llm.Config.BaseURL, and Requests returns what it
// received. ScriptServer is the same server as a testscript command
// (openai-server) for CLI tests.
//
// A reply with ToolCalls (Call) asks the client to run tools; the
// requests that follow carry their results in "tool" messages
// (Request.Messages).
//
// Replies are taken in order. A reply with Match set is used only for a
// request whose body contains Match (so concurrent requests can be
// scripted by content); a reply with Times < 0 is used forever. When no
// reply fits, the server answers 500 "llmtest: no scripted reply left",
// which a test sees as a failure.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status (0 means 200).
	Status int `json:"status,omitempty"`
	// Header holds extra response headers, e.g. {"Retry-After": "1"}.
	Header map[string]string `json:"header,omitempty"`
	// Body is the raw response body; when empty, a chat completion whose
	// message is Content (for status 200) or an OpenAI error object whose
	// message is Content (otherwise).
	Body    string `json:"body,omitempty"`
	Content string `json:"content,omitempty"`
	// Delay waits before answering; it ends early when the client leaves.
	Delay Duration `json:"delay,omitempty"`
	// TokensIn, TokensOut are the usage reported (0 means 10 and 5).
	TokensIn  int `json:"tokens_in,omitempty"`
	TokensOut int `json:"tokens_out,omitempty"`
	// FinishReason is the choice's finish_reason ("" means "stop"; say
	// "length" for a reply cut at the output token limit).
	FinishReason string `json:"finish_reason,omitempty"`
	// Echo names a request header whose value is appended to Content: a
	// server (or a model) that repeats what it was sent.
	Echo string `json:"echo,omitempty"`
	// Match restricts the reply to requests whose body contains it.
	Match string `json:"match,omitempty"`
	// Times is how many requests the reply serves (0 means 1, <0 forever).
	Times int `json:"times,omitempty"`
	// ToolCalls make the reply an assistant message asking for tool
	// calls (finish_reason "tool_calls" unless FinishReason says).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is one tool call of a scripted reply: the function's name and
// its arguments as JSON text; ID "" means "call_N", N counting the
// server's tool calls from 1.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Call is a 200 reply asking for one or more tool calls; args are each
// encoded as JSON (a string is taken as JSON text already).
func Call(name string, args any, more ...ToolCall) Reply {
	text, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		text = string(b)
	}
	return Reply{ToolCalls: append([]ToolCall{{Name: name, Arguments: text}}, more...)}
}

// Duration is a time.Duration that reads "1.5s" or a number of seconds
// from JSON.
type Duration time.Duration

// UnmarshalJSON reads "250ms" or 0.25.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		*d = Duration(n * float64(time.Second))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Text is a 200 reply whose message content is s.
func Text(s string) Reply { return Reply{Content: s} }

// JSON is a 200 reply whose message content is v encoded as JSON.
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return Reply{Content: string(b)}
}

// Verdict is a judge's structured reply {"reasoning": ..., "holds": ...}.
func Verdict(holds bool, reasoning string) Reply {
	return JSON(map[string]any{"reasoning": reasoning, "holds": holds})
}

// Status is an error reply with an OpenAI-style error body.
func Status(code int, message string) Reply { return Reply{Status: code, Content: message} }

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Query  string // the raw query, without '?'
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map (nil when it is not a JSON object).
func (r Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Model is the request's "model".
func (r Request) Model() string {
	s, _ := r.JSON()["model"].(string)
	return s
}

// Temperature is the request's "temperature" and whether the body has it.
func (r Request) Temperature() (float64, bool) {
	t, ok := r.JSON()["temperature"].(float64)
	return t, ok
}

// ResponseFormat is the request's "response_format" (nil when absent).
func (r Request) ResponseFormat() map[string]any {
	m, _ := r.JSON()["response_format"].(map[string]any)
	return m
}

// MaxTokens is the request's output token cap and the parameter that
// carries it ("max_tokens" or "max_completion_tokens"); 0 and "" when the
// request has none.
func (r Request) MaxTokens() (int, string) {
	m := r.JSON()
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if n, ok := m[k].(float64); ok {
			return int(n), k
		}
	}
	return 0, ""
}

// Message is one chat message of a request.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
}

// Tools are the names of the function tools the request offers.
func (r Request) Tools() []string {
	var body struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &body)
	var out []string
	for _, t := range body.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Messages are the request's chat messages.
func (r Request) Messages() []Message {
	var body struct {
		Messages []Message `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Messages
}

// Server is a scripted Chat Completions server.
type Server struct {
	// URL is the base URL, ending in /v1.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	script   []*slot
	requests []Request
	onReq    func(Request)
	calls    int // tool calls answered, for their ids
}

type slot struct {
	Reply
	used int
}

// NewServer starts a server answering with script; it stops when the test
// ends.
func NewServer(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s := Start(script...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server outside a Go test; Close stops it.
func Start(script ...Reply) *Server {
	s := &Server{}
	s.Push(script...)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Listen is Start on a given address ("127.0.0.1:8089"), for a scripted
// model a program outside a test talks to (cmd/openai-server).
func Listen(addr string, script ...Reply) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{}
	s.Push(script...)
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s, nil
}

// Close stops the server (waiting for requests in flight).
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range replies {
		s.script = append(s.script, &slot{Reply: r})
	}
}

// Requests returns a copy of the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is the number of requests received so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	reply, ok := s.next(body)
	onReq := s.onReq
	s.mu.Unlock()
	if onReq != nil {
		onReq(req)
	}
	if !ok {
		reply = Status(http.StatusInternalServerError, "llmtest: no scripted reply left")
	}
	if reply.Delay > 0 {
		select {
		case <-time.After(time.Duration(reply.Delay)):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Echo != "" {
		reply.Content += r.Header.Get(reply.Echo)
	}
	if len(reply.ToolCalls) > 0 {
		s.mu.Lock()
		calls := append([]ToolCall(nil), reply.ToolCalls...)
		for i := range calls {
			s.calls++
			if calls[i].ID == "" {
				calls[i].ID = fmt.Sprintf("call_%d", s.calls)
			}
		}
		s.mu.Unlock()
		reply.ToolCalls = calls
	}
	write(w, reply, req.Model())
}

// next takes the first reply that fits body; s.mu is held.
func (s *Server) next(body []byte) (Reply, bool) {
	for _, sl := range s.script {
		if sl.Times >= 0 && sl.used >= max(sl.Times, 1) {
			continue
		}
		if sl.Match != "" && !strings.Contains(string(body), sl.Match) {
			continue
		}
		sl.used++
		return sl.Reply, true
	}
	return Reply{}, false
}

func write(w http.ResponseWriter, r Reply, model string) {
	for k, v := range r.Header {
		w.Header().Set(k, v)
	}
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	body := r.Body
	if body == "" {
		body = defaultBody(r, status, model)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func defaultBody(r Reply, status int, model string) string {
	var v any
	if status != http.StatusOK {
		v = map[string]any{"error": map[string]any{"message": r.Content, "type": "llmtest_error", "code": status}}
	} else {
		in, out := r.TokensIn, r.TokensOut
		if in == 0 && out == 0 {
			in, out = 10, 5
		}
		v = map[string]any{
			"id": "chatcmpl-llmtest", "object": "chat.completion", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finishReason(r),
				"message": message(r)}},
			"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":{"message":%q}}`, err.Error())
	}
	return string(b)
}

// message is the assistant message of a 200 reply.
func message(r Reply) map[string]any {
	m := map[string]any{"role": "assistant", "content": r.Content}
	if len(r.ToolCalls) > 0 {
		var calls []any
		for _, c := range r.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		m["tool_calls"] = calls
	}
	return m
}

func finishReason(r Reply) string {
	if r.FinishReason == "" && len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	if r.FinishReason == "" {
		return "stop"
	}
	return r.FinishReason
}
