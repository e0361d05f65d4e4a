package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxReplyBytes caps a reply body read by the transport (a variable so
// tests can lower it).
var maxReplyBytes = 32 << 20

// callInfo is what one chat call and the transport tell each other: it is
// handed to the transport of that call (callTransport), not carried on the
// request's context.
type callInfo struct {
	temperature *float64 // set "temperature" in the body when absent
	attempts    int      // HTTP attempts made
	lastStatus  int      // status of the last attempt (0: no response)
	retryAfter  time.Duration
	// detail is the server's own message in the last attempt's error
	// reply, whatever its shape ("" when none); midGeneration marks a 200
	// whose choice failed (finish_reason "error"), read as a 502.
	detail        string
	midGeneration bool
}

// callTransport is the transport of one chat call: the client's transport
// with that call's callInfo.
type callTransport struct {
	t  *transport
	ci *callInfo
}

func (c callTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return c.t.roundTrip(req, c.ci)
}

// transport wraps an http.RoundTripper with per-attempt timeouts, retries
// with backoff that honour Retry-After (go-openai does not expose response
// headers on errors), and the temperature fix-up: go-openai omits a zero
// temperature, so the body gets it back here.
type transport struct {
	base  http.RoundTripper
	cfg   Config // with defaults
	meter *Meter
	// query is the base URL's query (?api-version=...), added to every
	// request.
	query string
}

// attemptTimeout is the error of an attempt that ran out of time.
type attemptTimeout struct{ after time.Duration }

func (e *attemptTimeout) Error() string   { return fmt.Sprintf("no reply within %s", e.after) }
func (e *attemptTimeout) Timeout() bool   { return true }
func (e *attemptTimeout) Temporary() bool { return true }

// malformedReply is a 2xx reply whose body is not JSON.
type malformedReply struct {
	status int
	body   []byte
}

func (e *malformedReply) Error() string {
	return fmt.Sprintf("malformed reply (status %d, %d bytes, not JSON): %s", e.status, len(e.body), excerpt(string(e.body), 120))
}

// RoundTrip serves requests made without a call of their own.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.roundTrip(req, &callInfo{})
}

func (t *transport) roundTrip(req *http.Request, ci *callInfo) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if ci.temperature != nil {
		body = setTemperature(body, *ci.temperature)
	}
	var resp *http.Response
	for attempt := 0; ; attempt++ {
		ci.attempts = attempt + 1
		var retryAfter time.Duration
		resp, retryAfter, err = t.attempt(req, body)
		if err != nil && req.Context().Err() != nil {
			return nil, req.Context().Err()
		}
		ci.lastStatus, ci.retryAfter, ci.detail, ci.midGeneration = 0, retryAfter, "", false
		if resp != nil {
			ci.lastStatus = resp.StatusCode
			if resp.StatusCode >= 400 {
				ci.detail, ci.midGeneration = serverMessage([]byte(peekBody(resp)))
			}
		}
		if !retryable(resp, err) || attempt >= t.cfg.MaxRetries || retryAfter > t.cfg.MaxRetryAfter || refusesParameter(resp) {
			return finish(resp, err)
		}
		t.meter.retries.Add(1)
		if err := t.cfg.Sleep(req.Context(), t.delay(attempt, retryAfter)); err != nil {
			return nil, err
		}
	}
}

// joinQuery appends the query b to the query a.
func joinQuery(a, b string) string {
	if a == "" {
		return b
	}
	return a + "&" + b
}

// finish turns the last attempt's outcome into RoundTrip's result: a
// malformed 2xx reply is handed on as is (the decoder reports it), errors
// pass through.
func finish(resp *http.Response, err error) (*http.Response, error) {
	var mal *malformedReply
	if errors.As(err, &mal) && resp != nil {
		return resp, nil
	}
	return resp, err
}

// attempt makes one HTTP attempt with its own timeout and reads the whole
// reply, so a timeout while reading is retried like any other.
func (t *transport) attempt(req *http.Request, body []byte) (*http.Response, time.Duration, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.cfg.Timeout)
	defer cancel()
	r := req.Clone(ctx)
	if t.query != "" {
		r.URL.RawQuery = joinQuery(r.URL.RawQuery, t.query)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, 0, t.attemptError(ctx, err)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxReplyBytes)+1))
	resp.Body.Close()
	if err != nil {
		if err := t.attemptError(ctx, err); !isAttemptTimeout(err) && ctx.Err() == nil {
			// The server was reached and began its reply: not a wrong
			// base URL, so the message must not say "cannot reach".
			return nil, 0, &cutReply{status: resp.StatusCode, err: err}
		}
		return nil, 0, t.attemptError(ctx, err)
	}
	if len(data) > maxReplyBytes {
		return nil, 0, errTooLarge
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	wait := retryAfter(resp.Header, time.Now())
	if resp.StatusCode/100 == 2 {
		if !json.Valid(data) {
			return resp, wait, &malformedReply{status: resp.StatusCode, body: data}
		}
		if code := embeddedError(data); code != 0 {
			resp.StatusCode, resp.Status = code, fmt.Sprintf("%d %s", code, http.StatusText(code))
		} else if code := failedChoice(data); code != 0 {
			resp.StatusCode, resp.Status = code, fmt.Sprintf("%d %s", code, http.StatusText(code))
		}
	}
	return resp, wait, nil
}

// parameterWords name the request parameters a server may not support.
var parameterWords = []string{"response_format", "json_schema", "temperature"}

// refusesParameter reports whether a 5xx reply is really the refusal of a
// parameter (llama-cpp-python and others answer 500 "response_format type
// must be one of ..."): asking again the same way cannot help, while the
// client can ask without it.
func refusesParameter(resp *http.Response) bool {
	if resp == nil || resp.StatusCode < 500 {
		return false
	}
	return mentions(peekBody(resp), parameterWords...)
}

// peekBody returns the body of a response whose body the transport has
// already read into memory, leaving it readable.
func peekBody(resp *http.Response) string {
	data, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return string(data)
}

// mentions reports whether s names one of words, ignoring case.
func mentions(s string, words ...string) bool {
	s = strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// errTooLarge ends a call whose reply body passes maxReplyBytes; it is not
// retried.
var errTooLarge = errors.New("the reply body is too large")

// embeddedError reads a 2xx reply that is an error object instead of a
// completion (OpenRouter and some proxies answer 200 with
// {"error": {"code": 429, "message": ...}}). It returns the status the
// error stands for: its numeric code when that is an HTTP error status,
// else 502; 0 when the reply is no such error.
func embeddedError(data []byte) int {
	var r struct {
		Error   json.RawMessage   `json:"error"`
		Choices []json.RawMessage `json:"choices"`
	}
	if json.Unmarshal(data, &r) != nil || len(r.Choices) > 0 {
		return 0
	}
	if e := bytes.TrimSpace(r.Error); len(e) == 0 || string(e) == "null" {
		return 0
	}
	var e struct {
		Code any `json:"code"`
	}
	_ = json.Unmarshal(r.Error, &e)
	var n int
	switch c := e.Code.(type) {
	case float64:
		n = int(c)
	case string:
		n, _ = strconv.Atoi(c)
	}
	if n >= 400 && n <= 599 {
		return n
	}
	return http.StatusBadGateway
}

// failedChoice reads a 2xx completion whose choice failed while the
// model generated it: finish_reason "error", or an "error" object in the
// choice (OpenRouter, when the provider behind it fails mid-way). It
// returns the status the failure stands for: the error's code when that
// is a 5xx, else 502, so that it is retried like a 5xx;
// 0 when the reply is no such failure.
func failedChoice(data []byte) int {
	var r struct {
		Choices []struct {
			FinishReason string          `json:"finish_reason"`
			Error        json.RawMessage `json:"error"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &r) != nil || len(r.Choices) == 0 {
		return 0
	}
	ch := r.Choices[0]
	e := bytes.TrimSpace(ch.Error)
	hasError := len(e) > 0 && string(e) != "null"
	if ch.FinishReason != "error" && !hasError {
		return 0
	}
	var code struct {
		Code any `json:"code"`
	}
	_ = json.Unmarshal(e, &code)
	if n, ok := code.Code.(float64); ok && n >= 500 && n <= 599 {
		return int(n)
	}
	return http.StatusBadGateway
}

// serverMessage is the server's own message in an error reply, read from
// any of the shapes servers use: {"error": "text"} (LM Studio),
// {"error": {"message": ...}} (OpenAI, Ollama, llama.cpp, OpenRouter),
// {"message": ...} (vLLM), {"detail": ...} (FastAPI), a completion whose
// choice carries the error (OpenRouter mid-generation), or plain text.
// midGeneration reports the last. "" when the body says nothing.
func serverMessage(data []byte) (msg string, midGeneration bool) {
	var r struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Choices []struct {
			FinishReason string          `json:"finish_reason"`
			Error        json.RawMessage `json:"error"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &r) != nil {
		if json.Valid(data) {
			return excerpt(string(data), 300), false
		}
		return excerpt(strings.TrimSpace(string(data)), 300), false
	}
	if len(r.Choices) > 0 && (r.Choices[0].FinishReason == "error" || hasValue(r.Choices[0].Error)) {
		if m := textOf(r.Choices[0].Error); m != "" {
			return m, true
		}
		return `the reply ended with finish_reason "error"`, true
	}
	for _, f := range []json.RawMessage{r.Error, r.Message, r.Detail} {
		if m := textOf(f); m != "" {
			return m, false
		}
	}
	return excerpt(string(data), 300), false
}

// hasValue reports whether a JSON member is present and not null.
func hasValue(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// textOf is the message a JSON error member holds: itself when a string,
// its "message" (or "msg", or a list of them, as FastAPI's details)
// otherwise; "" when none.
func textOf(raw json.RawMessage) string {
	if !hasValue(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return excerpt(s, 300)
	}
	var o struct {
		Message json.RawMessage `json:"message"`
		Msg     string          `json:"msg"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if m := textOf(o.Message); m != "" {
			return m
		}
		return excerpt(o.Msg, 300)
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, x := range list {
			if m := textOf(x); m != "" {
				parts = append(parts, m)
			}
		}
		return excerpt(strings.Join(parts, "; "), 300)
	}
	return ""
}

// cutReply is an attempt whose reply began (status and headers came)
// but whose body broke off: the server closed the connection or crashed
// mid-reply. It is retried like any dropped connection.
type cutReply struct {
	status int
	err    error
}

func (e *cutReply) Error() string {
	return e.err.Error()
}

func (e *cutReply) Unwrap() error { return e.err }

func isAttemptTimeout(err error) bool {
	var to *attemptTimeout
	return errors.As(err, &to)
}

func (t *transport) attemptError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &attemptTimeout{after: t.cfg.Timeout}
	}
	return err
}

// retryable reports whether an attempt's outcome is worth another try.
func retryable(resp *http.Response, err error) bool {
	if errors.Is(err, errTooLarge) || refused(err) {
		return false
	}
	if err != nil {
		return true // connection errors, timeouts, malformed replies
	}
	switch s := resp.StatusCode; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests:
		return true
	case s >= 500:
		return true
	}
	return false
}

// delay is the wait before retry number attempt+1: exponential backoff
// with jitter in [d/2, d], or the server's Retry-After when longer.
func (t *transport) delay(attempt int, retryAfter time.Duration) time.Duration {
	d := t.cfg.Backoff
	for i := 0; i < attempt && d < t.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, t.cfg.MaxBackoff)
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	return max(d, retryAfter)
}

// retryAfter reads retry-after-ms or Retry-After (seconds or an HTTP
// date); 0 when absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if n, err := strconv.ParseFloat(ms, 64); err == nil && n > 0 {
			return waitOf(n, time.Millisecond)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return waitOf(n, time.Second)
	}
	if when, err := http.ParseTime(v); err == nil && when.After(now) {
		return min(when.Sub(now), maxRetryAfterHeader)
	}
	return 0
}

// maxRetryAfterHeader is the longest wait a Retry-After or retry-after-ms
// header is read as. Decided: a longer one (`Retry-After: 1e10`, `Inf`,
// a date years ahead) is read as this much, not dropped: converted as is,
// it overflowed time.Duration, came out negative and the call retried at
// once, as if the server had not asked to wait. Read as a day, it is over
// Config.MaxRetryAfter, so the call gives up saying the server asks to
// wait longer than that.
const maxRetryAfterHeader = 24 * time.Hour

// waitOf is n units as a duration, at most maxRetryAfterHeader.
func waitOf(n float64, unit time.Duration) time.Duration {
	if n >= float64(maxRetryAfterHeader/unit) {
		return maxRetryAfterHeader
	}
	return time.Duration(n * float64(unit))
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// setTemperature adds "temperature": t to a JSON object body that lacks
// the key (go-openai drops a zero temperature through omitempty).
func setTemperature(body []byte, t float64) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	if _, ok := m["temperature"]; ok {
		return body
	}
	i := bytes.IndexByte(body, '{')
	field := []byte(`"temperature":` + strconv.FormatFloat(t, 'g', -1, 64))
	if len(m) > 0 {
		field = append(field, ',')
	}
	out := make([]byte, 0, len(body)+len(field))
	out = append(out, body[:i+1]...)
	out = append(out, field...)
	return append(out, body[i+1:]...)
}

// excerpt shortens s to about n bytes for a message.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n-- // not inside a character
	}
	return s[:n] + "..."
}
