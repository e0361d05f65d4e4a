package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/llm/llmtest"
)

// completion is a Chat Completions body with the given message JSON,
// finish reason and extra top-level fields (raw JSON members).
func completion(message, finish, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":` +
		message + `,"finish_reason":"` + finish + `"}]` + extra + `}`
}

func chat(t *testing.T, c *Client) (ChatReply, error) {
	t.Helper()
	return c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
}

// Ollama's /v1 answers without usage, or with usage null; vLLM adds
// fields of its own. Both are read, with zero tokens counted where none
// are reported.
func TestServerDialects(t *testing.T) {
	msg := `{"role":"assistant","content":"hello"}`
	cases := map[string]string{
		"no usage":   completion(msg, "stop", ""),
		"null usage": completion(msg, "stop", `"usage":null`),
		"vllm": completion(`{"role":"assistant","content":"hello","reasoning_content":null,"tool_calls":[]}`, "stop",
			`"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9,"prompt_tokens_details":null},"prompt_logprobs":null,"kv_transfer_params":null,"system_fingerprint":null`),
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Reply{Body: body})
			c, _ := newTestClient(t, srv, nil)
			r, err := chat(t, c)
			if err != nil || r.Content != "hello" || r.FinishReason != "stop" || r.Truncated {
				t.Fatalf("reply %+v, err %v", r, err)
			}
			u := c.Usage()
			if u.ModelCalls != 1 || u.TokensIn != int64(r.TokensIn) {
				t.Errorf("usage %+v for reply %+v", u, r)
			}
		})
	}
}

// llama.cpp's server may ignore response_format and wrap the JSON in
// prose and a fence: the judge still reads the verdict.
func TestJudgeReadsVerdictInProse(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("Sure! Here is my verdict:\n```json\n{\"reasoning\": \"the critic objects\", \"holds\": false}\n```\nHope this helps."))
	d, _, _ := newJudge(t, srv)
	v, err := d.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "I have doubts about step 2"}`))
	if err != nil || v.Holds || !v.Asked || v.Reasoning != "the critic objects" {
		t.Fatalf("verdict %+v, err %v", v, err)
	}
}

// OpenRouter and some proxies answer 200 with an error object: it is
// treated as the status its code names (retried when that is 429/5xx),
// and its message is shown.
func TestErrorInOKReply(t *testing.T) {
	t.Run("rate limit then success", func(t *testing.T) {
		srv := llmtest.NewServer(t,
			llmtest.Reply{Body: `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min"}}`},
			llmtest.Text("fine"))
		c, sl := newTestClient(t, srv, nil)
		r, err := chat(t, c)
		if err != nil || r.Content != "fine" || srv.Count() != 2 || len(sl.waits()) != 1 {
			t.Fatalf("reply %+v, err %v, %d requests, waits %v", r, err, srv.Count(), sl.waits())
		}
	})
	t.Run("bad key", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Reply{Body: `{"error":{"code":401,"message":"No auth credentials found"}}`})
		c, _ := newTestClient(t, srv, nil)
		_, err := chat(t, c)
		var e *Error
		if !errors.As(err, &e) || e.Status != 401 || e.Retryable() || srv.Count() != 1 ||
			!strings.Contains(err.Error(), "refused the API key") || !strings.Contains(err.Error(), "No auth credentials found") {
			t.Fatalf("err %v (%+v), %d requests", err, e, srv.Count())
		}
	})
	t.Run("no credits", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Reply{Body: `{"error":{"code":402,"message":"Insufficient credits"},"user_id":"u"}`})
		c, _ := newTestClient(t, srv, nil)
		_, err := chat(t, c)
		var e *Error
		if !errors.As(err, &e) || e.Retryable() || !strings.Contains(err.Error(), "asks for payment (402)") ||
			!strings.Contains(err.Error(), "Insufficient credits") || srv.Count() != 1 {
			t.Fatalf("err %v, %d requests", err, srv.Count())
		}
	})
	t.Run("code that is no status", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Reply{Body: `{"error":{"code":"upstream_error","message":"provider returned error"},"user_id":"u"}`, Times: -1})
		c, _ := newTestClient(t, srv, func(c *Config) { c.MaxRetries = 1 })
		_, err := chat(t, c)
		if err == nil || !strings.Contains(err.Error(), "provider returned error") || srv.Count() != 2 {
			t.Fatalf("err %v, %d requests", err, srv.Count())
		}
	})
}

// A refusal (content null, refusal set) or a content filter is an error
// saying so, not an empty reply, and is not asked again.
func TestRefusal(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Body: completion(`{"role":"assistant","content":null,"refusal":"I can't help with that."}`, "stop", "")},
		llmtest.Reply{Body: completion(`{"role":"assistant","content":""}`, "content_filter", "")})
	c, _ := newTestClient(t, srv, nil)
	s := NewSlotService(c, SlotInfo{Slot: "writer"})
	_, err := s.Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	var e *Error
	if !errors.As(err, &e) || e.Retryable() || !strings.Contains(err.Error(), "refused to answer: I can't help with that.") {
		t.Fatalf("err %v", err)
	}
	_, err = s.Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	if err == nil || !strings.Contains(err.Error(), "content filter") {
		t.Fatalf("err %v", err)
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests, want 2 (no retry)", srv.Count())
	}
}

// finish_reason "length": a slot's reply is incomplete (an error, so the
// call's retries apply); a judge's cut JSON is unreadable, and says why.
func TestTruncatedReply(t *testing.T) {
	cut := llmtest.Reply{Body: completion(`{"role":"assistant","content":"{\"reasoning\": \"The proposal is long and"}`, "length", ""), Times: -1}
	srv := llmtest.NewServer(t, cut)
	c, _ := newTestClient(t, srv, nil)
	_, err := NewSlotService(c, SlotInfo{Slot: "w"}).Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	if err == nil || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("slot err %v", err)
	}
	d := &judge.Deterministic{Next: NewModelJudge(c, JudgeOptions{})}
	_, err = d.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "hmm"}`))
	if err == nil || !strings.Contains(err.Error(), `finish_reason "length"`) || !strings.Contains(err.Error(), "verdict certifies the proposal") {
		t.Fatalf("judge err %v", err)
	}
}

// Reasoning models put <think>...</think> before the answer; braces and
// "holds" inside the thoughts are not the verdict.
func TestThinkingIsSkipped(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Text("<think>\nMaybe {\"holds\": true}? No: step 2 is wrong.\n</think>\n\n{\"reasoning\": \"step 2 is wrong\", \"holds\": false}"),
		llmtest.Text("The critic hesitates {\"holds\": true}...\n</think>\n{\"holds\": false}"),
		llmtest.Text("<think>first</think>\n```json\n{\"answer\": 42}\n```"),
		llmtest.Reply{Body: completion(`{"role":"assistant","content":"<think>I keep thinking and never"}`, "stop", "")})
	c, _ := newTestClient(t, srv, nil)
	mj := NewModelJudge(c, JudgeOptions{})
	for _, vals := range []string{`{"verdict": "a"}`, `{"verdict": "b"}`} {
		v, err := mj.Judge(context.Background(), judgment(t, certifiesCond, vals))
		if err != nil || v.Holds {
			t.Errorf("verdict %+v, err %v: the thoughts were read as the answer", v, err)
		}
	}
	s := NewSlotService(c, SlotInfo{Slot: "w"})
	v, err := s.Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	if o, ok := v.(*delegation.Object); err != nil || !ok || o.Len() != 1 {
		t.Errorf("slot value %v, err %v", v, err)
	}
	_, err = s.Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	if err == nil || !strings.Contains(err.Error(), "only its reasoning") {
		t.Errorf("err %v", err)
	}
}

// OPENAI_BASE_URL includes the API version path, as for the official
// SDKs: /chat/completions is appended, nothing else; a trailing slash is
// fine; a base URL without /v1 that gets a 404 is told to add it.
func TestBaseURLForms(t *testing.T) {
	for _, suffix := range []string{"", "/"} {
		srv := llmtest.NewServer(t, llmtest.Text("ok"))
		c, _ := newTestClient(t, srv, func(c *Config) { c.BaseURL += suffix })
		if _, err := chat(t, c); err != nil {
			t.Fatal(err)
		}
		if p := srv.Requests()[0].Path; p != "/v1/chat/completions" {
			t.Errorf("base %q: path %q", srv.URL+suffix, p)
		}
	}
	srv := llmtest.NewServer(t, llmtest.Status(404, "404 page not found"))
	root := strings.TrimSuffix(srv.URL, "/v1")
	c, _ := newTestClient(t, srv, func(c *Config) { c.BaseURL = root })
	_, err := chat(t, c)
	if err == nil || !strings.Contains(err.Error(), "try "+root+"/v1") {
		t.Fatalf("err %v", err)
	}
	if p := srv.Requests()[0].Path; p != "/chat/completions" {
		t.Errorf("path %q: /v1 must not be added silently", p)
	}
}

// The default transport takes a proxy from the environment.
func TestDefaultTransportUsesEnvironmentProxy(t *testing.T) {
	c, err := NewClient(Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := c.tr.base.(*http.Transport)
	if !ok || tr.Proxy == nil {
		t.Fatalf("base transport %T has no proxy function", c.tr.base)
	}
}

// A reply body past the cap ends the call, without retries, saying so.
func TestHugeReplyBody(t *testing.T) {
	defer func(n int) { maxReplyBytes = n }(maxReplyBytes)
	maxReplyBytes = 1 << 20
	big := completion(`{"role":"assistant","content":"`+strings.Repeat("a", maxReplyBytes)+`"}`, "stop", "")
	srv := llmtest.NewServer(t, llmtest.Reply{Body: big, Times: -1})
	c, _ := newTestClient(t, srv, nil)
	_, err := chat(t, c)
	if err == nil || !strings.Contains(err.Error(), "too large") || srv.Count() != 1 {
		t.Fatalf("err %v, %d requests", err, srv.Count())
	}
}

// A slot reply larger than MaxSlotReplyBytes is an error, not a value.
func TestHugeSlotReply(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text(strings.Repeat("word ", MaxSlotReplyBytes/5+1)))
	c, _ := newTestClient(t, srv, nil)
	_, err := NewSlotService(c, SlotInfo{Slot: "w"}).Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("err %v", err)
	}
}

// Servers built on FastAPI reject an unknown parameter with 422: the
// schema falls back to instructions as for a 400, and a 422 is not asked
// again as is.
func TestResponseFormatRejectedWith422(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Status(422, "response_format: json_schema is not supported by this backend"),
		llmtest.Text(`{"holds": true}`),
		llmtest.Status(422, "messages: field required"))
	c, _ := newTestClient(t, srv, nil)
	reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}, Schema: verdictSchema})
	if err != nil || reply.Structured || srv.Requests()[1].ResponseFormat() != nil {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	_, err = chat(t, c)
	var e *Error
	if !errors.As(err, &e) || e.Retryable() || !strings.Contains(err.Error(), "rejected the request") || srv.Count() != 3 {
		t.Fatalf("err %v, %d requests", err, srv.Count())
	}
}

// A base URL with a path of its own but no version (Ollama's native /api)
// gets both likely fixes in the 404 message.
func TestBaseURLWithOtherPath(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Status(404, "404 page not found"))
	root := strings.TrimSuffix(srv.URL, "/v1")
	c, _ := newTestClient(t, srv, func(c *Config) { c.BaseURL = root + "/api/" })
	_, err := chat(t, c)
	if err == nil || !strings.Contains(err.Error(), "try "+root+"/api/v1 or "+root+"/v1") {
		t.Fatalf("err %v", err)
	}
}

// llama-cpp-python and ik_llama.cpp answer 500 for an unsupported
// response_format: not retried as is, but asked again without it.
func TestResponseFormatRejectedWith500(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Status(500, `response_format type must be one of "text" or "json_object", but got: json_schema`),
		llmtest.Text(`{"holds": false}`))
	c, sl := newTestClient(t, srv, nil)
	reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}, Schema: verdictSchema})
	if err != nil || reply.Structured || reply.Content != `{"holds": false}` {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].ResponseFormat() != nil || len(sl.waits()) != 0 {
		t.Fatalf("%d requests, waits %v", len(reqs), sl.waits())
	}
}

// A server that gives the reply's content as a list of parts (as a
// request may) is read as the text of its text parts, in order; a
// reasoning block among them is left out.
func TestContentAsParts(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Body: completion(`{"role":"assistant","content":[`+
		`{"type":"thinking","thinking":"hmm"},{"type":"text","text":"{\"reasoning\": \"fine\", "},{"type":"text","text":"\"holds\": true}"}]}`, "stop", ""), Times: -1})
	c, _ := newTestClient(t, srv, nil)
	reply, err := chat(t, c)
	if err != nil || reply.Content != `{"reasoning": "fine", "holds": true}` {
		t.Fatalf("reply %q, %v", reply.Content, err)
	}
	d := &judge.Deterministic{Next: NewModelJudge(c, JudgeOptions{})}
	v, err := d.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "hmm"}`))
	if err != nil || !v.Holds {
		t.Fatalf("verdict %+v, %v", v, err)
	}
}
