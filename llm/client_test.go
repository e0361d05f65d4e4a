package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/llm/llmtest"
)

// testKey is recognizable so a test can grep every output for it.
const testKey = "sk-test-SECRET-4f1c9e77"

// sleeps records the waits a client asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func newTestClient(t *testing.T, srv *llmtest.Server, edit func(*Config)) (*Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	cfg := Config{APIKey: testKey, BaseURL: srv.URL, Model: "judge-model", Sleep: sl.sleep, Timeout: 5 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	c, err := NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, sl
}

// noKey fails when any of outs contains the API key.
func noKey(t *testing.T, outs ...string) {
	t.Helper()
	for _, s := range outs {
		if strings.Contains(s, testKey) || strings.Contains(s, "SECRET-4f1c") {
			t.Errorf("API key leaked in %q", s)
		}
	}
}

var verdictSchema = &Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object","properties":{"holds":{"type":"boolean"}},"required":["holds"]}`)}

func TestChatSendsModelTemperatureSchemaAndKey(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Verdict(true, "fine"))
	c, _ := newTestClient(t, srv, nil)
	reply, err := c.Chat(context.Background(), ChatRequest{System: "sys", Messages: []Message{{Content: "hello"}}, Schema: verdictSchema})
	if err != nil {
		t.Fatal(err)
	}
	if !reply.Structured || reply.TokensIn != 10 || reply.TokensOut != 5 || reply.Attempts != 1 {
		t.Errorf("reply = %+v", reply)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Model() != "judge-model" {
		t.Errorf("path %s model %s", r.Path, r.Model())
	}
	if temp, ok := r.Temperature(); !ok || temp != 0 {
		t.Errorf("temperature = %v, %v; body %s", temp, ok, r.Body)
	}
	if !strings.Contains(string(r.Body), `"temperature":0`) {
		t.Errorf("body lacks an exact zero temperature: %s", r.Body)
	}
	rf := r.ResponseFormat()
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "verdict" || js["strict"] != true || js["schema"] == nil {
		t.Errorf("response_format = %v", rf)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	msgs := r.Messages()
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Content != "hello" {
		t.Errorf("messages = %+v", msgs)
	}
}

func TestNonZeroTemperatureKept(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("x"))
	c, _ := newTestClient(t, srv, func(c *Config) { c.Temperature = 0.5 })
	if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	if temp, ok := srv.Requests()[0].Temperature(); !ok || temp != 0.5 {
		t.Errorf("temperature = %v, %v", temp, ok)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "3"}},
		llmtest.Text("ok"))
	c, sl := newTestClient(t, srv, nil)
	reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err != nil || reply.Content != "ok" || reply.Attempts != 2 {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if w := sl.waits(); len(w) != 1 || w[0] < 3*time.Second {
		t.Errorf("waits = %v, want one of at least 3s", w)
	}
	if u := c.Usage(); u.Retries != 1 || u.ModelCalls != 1 {
		t.Errorf("usage = %+v", u)
	}
}

func TestRetryAfterMillisAndDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After-Ms", "1500")
	if d := retryAfter(h, now); d != 1500*time.Millisecond {
		t.Errorf("retry-after-ms: %v", d)
	}
	h = http.Header{}
	h.Set("Retry-After", now.Add(7*time.Second).Format(http.TimeFormat))
	if d := retryAfter(h, now); d != 7*time.Second {
		t.Errorf("retry-after date: %v", d)
	}
	h.Set("Retry-After", "soon")
	if d := retryAfter(h, now); d != 0 {
		t.Errorf("garbage retry-after: %v", d)
	}
}

func TestRetryAfterTooLongGivesUp(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 429, Content: "quota", Header: map[string]string{"Retry-After": "3600"}, Times: -1})
	c, sl := newTestClient(t, srv, nil)
	_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v", err)
	}
	if srv.Count() != 1 || len(sl.waits()) != 0 {
		t.Errorf("%d requests, waits %v", srv.Count(), sl.waits())
	}
}

func TestServerErrorsThenSuccess(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 500, Content: "boom", Times: 3}, llmtest.Text("fine"))
	c, sl := newTestClient(t, srv, func(c *Config) { c.Backoff = 100 * time.Millisecond })
	reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err != nil || reply.Content != "fine" {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if srv.Count() != 4 || reply.Attempts != 4 {
		t.Errorf("%d requests, %d attempts", srv.Count(), reply.Attempts)
	}
	w := sl.waits()
	if len(w) != 3 {
		t.Fatalf("waits = %v", w)
	}
	for i, d := range w {
		hi := 100 * time.Millisecond << i
		if d < hi/2 || d > hi {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, d, hi/2, hi)
		}
	}
}

func TestServerErrorsExhausted(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 503, Content: "down", Times: -1})
	c, _ := newTestClient(t, srv, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	var e *Error
	if !errors.As(err, &e) || e.Status != 503 || e.Attempts != 3 || !e.Retryable() {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "failed (503) after 3 attempts") || srv.Count() != 3 {
		t.Errorf("err %q after %d requests", err, srv.Count())
	}
}

func TestMalformedBody(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Body: "<html>gateway</html>"}, llmtest.Text("ok"))
	c, _ := newTestClient(t, srv, nil)
	reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err != nil || reply.Content != "ok" || srv.Count() != 2 {
		t.Fatalf("reply %+v, err %v, %d requests", reply, err, srv.Count())
	}

	srv = llmtest.NewServer(t, llmtest.Reply{Body: `{"choices": [`, Times: -1})
	c, _ = newTestClient(t, srv, func(c *Config) { c.MaxRetries = 1 })
	_, err = c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "malformed reply") || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Fatalf("err = %v", err)
	}
}

// TestSlowReplyTimesOut: Config.Timeout is one deadline for the whole
// call. A reply that does not come within it ends the call with no further
// attempt (before, each attempt had the whole timeout and four of them
// ran), and a retried failure does not restart the clock.
func TestSlowReplyTimesOut(t *testing.T) {
	// The deadline is long enough for a loaded machine to send a request
	// (and one retry) well within it; the reply would take ten minutes.
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "late", Delay: llmtest.Duration(10 * time.Minute), Times: -1})
	c, _ := newTestClient(t, srv, func(c *Config) { c.Timeout = 3 * time.Second; c.MaxRetries = 3 })
	_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "within 3s") || !strings.Contains(err.Error(), "whole call") ||
		!strings.Contains(err.Error(), "PROSE_MODEL_TIMEOUT") || srv.Count() != 1 {
		t.Fatalf("err = %v after %d requests, want one request", err, srv.Count())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the call's own deadline reads as the caller's: %v", err)
	}

	// Retried failures share the deadline: the waits between them count.
	srv = llmtest.NewServer(t, llmtest.Status(503, "busy"), llmtest.Reply{Content: "late", Delay: llmtest.Duration(10 * time.Minute), Times: -1})
	c, _ = newTestClient(t, srv, func(c *Config) { c.Timeout = 3 * time.Second; c.MaxRetries = 3 })
	_, err = c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "2 attempts") || srv.Count() != 2 {
		t.Fatalf("err = %v after %d requests, want two", err, srv.Count())
	}
}

// TestCallerCancellationStops: the caller cancels while the one request
// is at the server; the call ends with the caller's error and is not
// retried. The cancel waits for the request to arrive, so a loaded machine
// cannot cancel it before it is sent.
func TestCallerCancellationStops(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "late", Delay: llmtest.Duration(10 * time.Second), Times: -1})
	c, _ := newTestClient(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for srv.Count() == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Chat(ctx, ChatRequest{Messages: []Message{{Content: "q"}}})
	if !errors.Is(err, context.Canceled) || srv.Count() != 1 {
		t.Fatalf("err = %v after %d requests", err, srv.Count())
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	cases := []struct {
		status int
		server string
		want   []string
	}{
		{401, "Incorrect API key provided: " + testKey, []string{"refused the API key (401)", "OPENAI_API_KEY"}},
		{403, "no access", []string{"403", `"judge-model"`, "--model"}},
		{404, "The model `judge-model` does not exist", []string{"404", `unknown model "judge-model"`, "OPENAI_BASE_URL"}},
		{400, "bad messages", []string{"rejected the request", "(400)", "bad messages"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Status(tc.status, tc.server), llmtest.Text("should not be reached"))
			c, sl := newTestClient(t, srv, nil)
			_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Retryable() || e.Status != tc.status {
				t.Errorf("error %#v should be a non-retryable *Error with status %d", err, tc.status)
			}
			if srv.Count() != 1 || len(sl.waits()) != 0 {
				t.Errorf("%d requests, waits %v: want no retry", srv.Count(), sl.waits())
			}
			noKey(t, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		})
	}
}

func TestMissingKeyMessage(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Status(401, "missing bearer"))
	c, _ := newTestClient(t, srv, func(c *Config) { c.APIKey = "" })
	_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "wants an API key") {
		t.Fatalf("err = %v", err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := llmtest.Start()
	url := srv.URL
	srv.Close()
	c, sl := newTestClient(t, &llmtest.Server{URL: url}, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	// Nothing listening: a refused connection is not transient, so the
	// first attempt's message comes at once, without retries.
	if err == nil || !strings.Contains(err.Error(), "cannot reach the model server") || !strings.Contains(err.Error(), "after 1 attempt;") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v", err)
	}
	if len(sl.waits()) != 0 {
		t.Errorf("waits = %v, want none", sl.waits())
	}
	noKey(t, err.Error())
}

func TestResponseFormatRejectedFallsBack(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Status(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
		llmtest.Text(`{"holds": true}`), llmtest.Text(`{"holds": false}`))
	c, _ := newTestClient(t, srv, nil)
	reply, err := c.Chat(context.Background(), ChatRequest{System: "judge", Messages: []Message{{Content: "q"}}, Schema: verdictSchema})
	if err != nil || reply.Structured || reply.Content != `{"holds": true}` {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].ResponseFormat() == nil || reqs[1].ResponseFormat() != nil {
		t.Fatalf("requests: %d, formats %v / %v", len(reqs), reqs[0].ResponseFormat(), reqs[1].ResponseFormat())
	}
	sys := reqs[1].Messages()[0].Content
	if !strings.Contains(sys, "only one JSON object") || !strings.Contains(sys, `"holds"`) {
		t.Errorf("fallback system prompt lacks the schema instructions: %q", sys)
	}
	// The next request goes without response_format straight away.
	if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}, Schema: verdictSchema}); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || reqs[2].ResponseFormat() != nil {
		t.Errorf("third request: %d requests", len(reqs))
	}
}

func TestTemperatureRejectedFallsBack(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Status(400, "Unsupported value: 'temperature' does not support 0 with this model."),
		llmtest.Text("ok"))
	c, _ := newTestClient(t, srv, nil)
	if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if _, ok := reqs[1].Temperature(); len(reqs) != 2 || ok {
		t.Errorf("second request still has a temperature: %s", reqs[1].Body)
	}
}

func TestUsageCountsConcurrentCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "x", TokensIn: 7, TokensOut: 3, Times: -1})
	c, _ := newTestClient(t, srv, nil)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if u := c.Usage(); u.ModelCalls != 20 || u.TokensIn != 140 || u.TokensOut != 60 {
		t.Errorf("usage = %+v", u)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": " " + testKey + " ", "OPENAI_BASE_URL": "http://localhost:11434/v1/",
		"PROSE_MODEL": "llama3", "PROSE_MODEL_TIMEOUT": "45"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIKey != testKey || cfg.Model != "llama3" || cfg.Timeout != 45*time.Second || cfg.baseURL() != "http://localhost:11434/v1" {
		t.Errorf("cfg = %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Error(err)
	}
	env["PROSE_MODEL_TIMEOUT"] = "soon"
	if _, err := ConfigFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Error("bad timeout accepted")
	}
	if err := (Config{}).Validate(); err == nil || !strings.Contains(err.Error(), "PROSE_MODEL") {
		t.Errorf("no model: %v", err)
	}
	bad := Config{Model: "m", BaseURL: "localhost:" + testKey, APIKey: testKey}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("bad URL: %v", err)
	} else {
		noKey(t, err.Error())
	}
	if _, err := NewClient(Config{}, nil); err == nil {
		t.Error("NewClient without a model")
	}
}

func TestSetTemperature(t *testing.T) {
	cases := map[string]string{
		`{"model":"m"}`:                   `{"temperature":0,"model":"m"}`,
		`{}`:                              `{"temperature":0}`,
		`{"temperature":0.7,"model":"m"}`: `{"temperature":0.7,"model":"m"}`,
		`not json`:                        `not json`,
	}
	for in, want := range cases {
		if got := string(setTemperature([]byte(in), 0)); got != want {
			t.Errorf("setTemperature(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestBaseURLQueryKept: a base URL with a query (?api-version=...) gets
// the endpoint's path before the query, and the query on every request.
func TestBaseURLQueryKept(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"))
	c, _ := newTestClient(t, srv, func(c *Config) { c.BaseURL = srv.URL + "/?api-version=2024-06-01&x=1" })
	for range 2 {
		if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range srv.Requests() {
		if r.Path != "/v1/chat/completions" || r.Query != "api-version=2024-06-01&x=1" {
			t.Errorf("request to path %q query %q", r.Path, r.Query)
		}
	}
}

// TestNoKeyForOpenAIFailsAtOnce: OpenAI's own API without a key is
// refused by CheckKey, which a runner calls before the run starts; a
// client asked anyway sends nothing and says what to set. Other servers
// need no key.
func TestNoKeyForOpenAIFailsAtOnce(t *testing.T) {
	sent := 0
	base := roundTripFunc(func(*http.Request) (*http.Response, error) {
		sent++
		return nil, errors.New("no network in tests")
	})
	for _, url := range []string{"", "https://api.openai.com/v1", "https://API.openai.com/v1/"} {
		cfg := Config{Model: "gpt-x", BaseURL: url, Sleep: (&sleeps{}).sleep}
		if err := cfg.CheckKey(); err == nil || !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
			t.Errorf("%q: CheckKey: %v", url, err)
		}
		c, err := NewClient(cfg, base)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
		var e *Error
		if !errors.As(err, &e) || e.Retryable() || !strings.Contains(err.Error(), "set OPENAI_API_KEY") ||
			!strings.Contains(err.Error(), "localhost:11434/v1") {
			t.Errorf("%q: err = %v", url, err)
		}
	}
	if sent != 0 {
		t.Errorf("%d requests sent without a key", sent)
	}
	if err := (Config{Model: "m", BaseURL: "http://localhost:11434/v1"}).CheckKey(); err != nil {
		t.Errorf("a local server without a key: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A Retry-After too long for a duration (1e10 seconds, Inf, a date years
// ahead) is read as the longest wait a header may ask, not dropped as
// if there were none: the call gives up at once, saying so.
func TestRetryAfterOverflowIsClamped(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, hv := range [][2]string{
		{"Retry-After", "1e10"},
		{"Retry-After", "Inf"},
		{"Retry-After", now.AddDate(400, 0, 0).Format(http.TimeFormat)},
		{"Retry-After-Ms", "1e300"},
	} {
		h := http.Header{}
		h.Set(hv[0], hv[1])
		if d := retryAfter(h, now); d != maxRetryAfterHeader {
			t.Errorf("%s: %s read as %v, want %v", hv[0], hv[1], d, maxRetryAfterHeader)
		}
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 429, Content: "quota", Header: map[string]string{"Retry-After": "1e10"}, Times: -1})
	c, sl := newTestClient(t, srv, nil)
	_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v", err)
	}
	if srv.Count() != 1 || len(sl.waits()) != 0 {
		t.Errorf("%d requests, waits %v: the header was dropped", srv.Count(), sl.waits())
	}
}
