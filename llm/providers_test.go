package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

// providerError is an error reply as a server documents it: its status,
// its body, and the server's message that must reach the user.
type providerError struct {
	name    string
	status  int
	body    string
	message string
}

// providerErrors are the error bodies of Ollama, vLLM, llama.cpp's
// server, LM Studio and OpenRouter, and two shapes any server may use (a
// top-level "detail", plain text).
var providerErrors = []providerError{
	{"ollama", 404, `{"error":{"message":"model \"qwen3:8b\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`,
		`model "qwen3:8b" not found, try pulling it first`},
	{"vllm", 400, `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`,
		"This model's maximum context length is 4096 tokens."},
	{"llama.cpp", 503, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, "Loading model"},
	{"lm studio", 400, `{"error":"No models loaded. Please load a model in the developer page or use the 'lms load' command."}`,
		"No models loaded. Please load a model"},
	{"openrouter", 400, `{"error":{"code":400,"message":"qwen/qwen3-8b is not a valid model ID","metadata":{"provider_name":null}},"user_id":"user_1"}`,
		"qwen/qwen3-8b is not a valid model ID"},
	{"fastapi detail", 422, `{"detail":"Input should be a valid list"}`, "Input should be a valid list"},
	{"plain text", 502, "upstream connect error or disconnect/reset before headers", "upstream connect error or disconnect/reset before headers"},
}

// Whatever the shape of its error body, the server's own message and the
// status reach the user, and the message never says the server could not
// be reached.
func TestProviderErrorShapes(t *testing.T) {
	for _, pe := range providerErrors {
		t.Run(pe.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Reply{Status: pe.status, Body: pe.body, Times: -1})
			c, _ := newTestClient(t, srv, func(c *Config) { c.MaxRetries = 1 })
			_, err := chat(t, c)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v: not an *Error", err)
			}
			if e.Status != pe.status || !strings.Contains(err.Error(), pe.message) || strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("status %d, err %q: want %d and the server's message %q", e.Status, err, pe.status, pe.message)
			}
		})
	}
}

// Each server's refusal of response_format, in its own error shape, makes
// the client ask again with the schema as instructions.
func TestResponseFormatRefusalEveryProvider(t *testing.T) {
	refusals := map[string]llmtest.Reply{
		"ollama":     {Status: 400, Body: `{"error":{"message":"invalid response_format: json_schema is not supported","type":"invalid_request_error","param":null,"code":null}}`},
		"vllm":       {Status: 400, Body: `{"object":"error","message":"response_format json_schema is not supported by the guided decoding backend","type":"BadRequestError","param":null,"code":400}`},
		"llama.cpp":  {Status: 500, Body: `{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}`},
		"lm studio":  {Status: 400, Body: `{"error":"'response_format.type' must be 'json_schema' or 'text'"}`},
		"openrouter": {Status: 400, Body: `{"error":{"code":400,"message":"Provider returned error: response_format is not supported for this model","metadata":{"provider_name":"X"}}}`},
		"plain text": {Status: 400, Body: `unsupported parameter: response_format`},
	}
	for name, refusal := range refusals {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(t, refusal, llmtest.Text(`{"holds": true}`))
			c, _ := newTestClient(t, srv, nil)
			reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}, Schema: verdictSchema})
			if err != nil || reply.Structured || reply.Content != `{"holds": true}` {
				t.Fatalf("reply %+v, err %v", reply, err)
			}
			if reqs := srv.Requests(); len(reqs) != 2 || reqs[0].ResponseFormat() == nil || reqs[1].ResponseFormat() != nil {
				t.Fatalf("%d requests: want one with response_format, then one without", len(reqs))
			}
		})
	}
}

// A 200 whose choice failed mid-generation (OpenRouter: finish_reason
// "error" and the choice's own error) is asked again like a 5xx; when it
// keeps failing, the error says what the server said.
func TestFinishReasonError(t *testing.T) {
	failed := `{"id":"gen-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error","error":{"code":502,"message":"Upstream provider disconnected"}}]}`
	t.Run("retried", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Reply{Body: failed}, llmtest.Text("fine"))
		c, sl := newTestClient(t, srv, nil)
		r, err := chat(t, c)
		if err != nil || r.Content != "fine" || srv.Count() != 2 || len(sl.waits()) != 1 {
			t.Fatalf("reply %+v, err %v, %d requests, waits %v", r, err, srv.Count(), sl.waits())
		}
	})
	t.Run("explained", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Reply{Body: failed, Times: -1})
		c, _ := newTestClient(t, srv, func(c *Config) { c.MaxRetries = 2 })
		_, err := chat(t, c)
		var e *Error
		if !errors.As(err, &e) || !e.Retryable() || srv.Count() != 3 ||
			!strings.Contains(err.Error(), "Upstream provider disconnected") || strings.Contains(err.Error(), "empty") {
			t.Fatalf("err %v, %d requests", err, srv.Count())
		}
	})
	t.Run("finish_reason alone", func(t *testing.T) {
		bare := completion(`{"role":"assistant","content":"half a rep"}`, "error", "")
		srv := llmtest.NewServer(t, llmtest.Reply{Body: bare}, llmtest.Text("fine"))
		c, _ := newTestClient(t, srv, nil)
		r, err := chat(t, c)
		if err != nil || r.Content != "fine" || srv.Count() != 2 {
			t.Fatalf("reply %+v, err %v, %d requests", r, err, srv.Count())
		}
	})
}
