package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// fixedReply is a transport that answers every request with one status,
// Retry-After header and body: the model server's envelope, with no
// network.
type fixedReply struct {
	status     int
	retryAfter string
	body       []byte
}

func (f fixedReply) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if f.retryAfter != "" {
		h.Set("Retry-After", f.retryAfter)
	}
	return &http.Response{StatusCode: f.status, Status: strconv.Itoa(f.status) + " " + http.StatusText(f.status), Header: h,
		Body: io.NopCloser(bytes.NewReader(f.body)), ContentLength: int64(len(f.body)), Request: req}, nil
}

// FuzzResponseEnvelope: whatever a model server answers (a status, a
// Retry-After header, a body that is a chat completion, an error object
// or neither), a verdict request, a slot and a render end with a reply or
// an error, never a panic, and no error shows the API key, also when the
// body echoes it.
func FuzzResponseEnvelope(f *testing.F) {
	ok := `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`
	for _, s := range []struct {
		status int
		ra     string
		body   string
	}{
		{200, "", strings.Replace(ok, "%q", `"{\"holds\": true, \"reasoning\": \"r\", \"summary\": \"s\"}"`, 1)},
		{200, "", `{"choices":[]}`},
		{200, "", `{"choices":[{"message":{"content":null},"finish_reason":"length"}]}`},
		{200, "", `{"choices":[{"message":{"role":"assistant","content":"<think>x</think>{}","tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{"}}]}}]}`},
		{200, "", `not json`},
		{400, "", `{"error":{"message":"Invalid API key sk-test-SECRET-4f1c9e77","type":"invalid_request_error","param":"max_tokens","code":"bad"}}`},
		{400, "", `{"error":"Unsupported parameter: 'response_format'"}`},
		{401, "", `{"error":{"message":"Incorrect API key provided: sk-test-SECRET-4f1c9e77"}}`},
		{429, "1e10", `{"error":{"message":"rate limited"}}`},
		{429, "-1", ``},
		{500, "Wed, 21 Oct 2015 07:28:00 GMT", `<html>oops</html>`},
		{503, "2", `{"detail":[{"msg":"overloaded"}]}`},
		{302, "", ``},
	} {
		f.Add(s.status, s.ra, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		if status < 100 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		if strings.ContainsAny(retryAfter, "\r\n\x00") {
			return // not a header a server can send
		}
		cfg := Config{APIKey: testKey, BaseURL: "http://model.invalid/v1", Model: "m", Timeout: 5 * time.Second,
			MaxRetries: 1, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
		c, err := NewClient(cfg, fixedReply{status, retryAfter, body})
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, err error) {
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Fatalf("%s: the error shows the API key: %v", what, err)
			}
		}
		_, err = c.Chat(context.Background(), ChatRequest{Messages: []Message{{Role: "user", Content: "q"}}, Schema: &Schema{Name: "verdict", JSON: VerdictSchema}})
		check("verdict", err)
		req := &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Attempt: 1}
		_, err = NewSlotService(c, SlotInfo{Slot: "writer"}).Call(context.Background(), req)
		check("slot", err)
		_, err = NewRenderService(c, RenderInfo{Name: "n", Kind: "function", Pos: "f:1:1", Returns: []Field{{Name: "summary"}}}).Call(context.Background(), req)
		check("render", err)
	})
}
