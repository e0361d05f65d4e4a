package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
)

// DefaultBaseURL is the OpenAI API; OPENAI_BASE_URL points elsewhere
// (Ollama, vLLM, llama.cpp's server, OpenRouter...).
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults of the output and prompt bounds (see Config). A verdict is a
// sentence and a boolean, with room for a reasoning model's thoughts; a
// slot's answer may be a document.
const (
	DefaultMaxTokens      = 4096
	DefaultJudgeMaxTokens = 1024
	DefaultMaxValueBytes  = 16 << 10
)

// Config configures a Client. The zero value of every field but Model has
// a working default.
type Config struct {
	// APIKey is sent as a bearer token. It never appears in an error, a
	// trace or any output: Redact removes it.
	APIKey  string
	BaseURL string // "" means DefaultBaseURL
	Model   string // required to ask anything
	// Timeout bounds one whole call: every HTTP attempt, the waits
	// between them and the reading of the reply (0 means 2 minutes). A
	// call that runs out of it ends with its error, without another
	// attempt: a model that loops until its time runs out would loop
	// again.
	Timeout time.Duration
	// MaxTokens caps the output tokens of a model acting in a slot
	// (PROSE_MAX_TOKENS; 0 means DefaultMaxTokens), JudgeMaxTokens those
	// of a verdict (PROSE_JUDGE_MAX_TOKENS; 0 means
	// DefaultJudgeMaxTokens). A request carries the cap as max_tokens, or
	// as max_completion_tokens where the server wants that (OpenAI's own
	// API, its reasoning models, a server that refuses max_tokens). A
	// reply cut at the cap (finish_reason "length") is an error saying
	// so.
	MaxTokens      int
	JudgeMaxTokens int
	// MaxValueBytes bounds each value a slot's prompt carries from the
	// call's arguments (PROSE_MAX_VALUE_BYTES; 0 means
	// DefaultMaxValueBytes): a longer one is cut, with a marker naming it.
	MaxValueBytes int
	// MaxRetries is the number of extra attempts after a retryable failure
	// (408, 409, 429, 5xx, a connection error, a timed-out attempt, a
	// malformed reply). 0 means 3; negative means none.
	MaxRetries int
	// Backoff is the delay before the first retry, doubled for each next
	// one with full jitter, and capped by MaxBackoff (0: 500ms and 20s). A
	// Retry-After or retry-after-ms header wins when longer.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a server asking
	// for more ends the call with its error (0 means 60s).
	MaxRetryAfter time.Duration
	// Temperature for every request (default 0). It is always sent, also
	// when 0.
	Temperature float64
	// Sleep waits between attempts; nil uses a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// ConfigFromEnv reads OPENAI_API_KEY, OPENAI_BASE_URL, PROSE_MODEL,
// PROSE_MODEL_TIMEOUT (a Go duration or seconds), PROSE_MAX_TOKENS,
// PROSE_JUDGE_MAX_TOKENS and PROSE_MAX_VALUE_BYTES through getenv. Flags
// such as --model and --base-url override the fields afterwards.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		APIKey:  strings.TrimSpace(getenv("OPENAI_API_KEY")),
		BaseURL: strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		Model:   strings.TrimSpace(getenv("PROSE_MODEL")),
	}
	if t := strings.TrimSpace(getenv("PROSE_MODEL_TIMEOUT")); t != "" {
		d, err := parseDuration(t)
		if err != nil {
			return c, fmt.Errorf("PROSE_MODEL_TIMEOUT=%q: want a duration such as 90s", t)
		}
		c.Timeout = d
	}
	for _, n := range []struct {
		name string
		dst  *int
	}{{"PROSE_MAX_TOKENS", &c.MaxTokens}, {"PROSE_JUDGE_MAX_TOKENS", &c.JudgeMaxTokens}, {"PROSE_MAX_VALUE_BYTES", &c.MaxValueBytes}} {
		if v := strings.TrimSpace(getenv(n.name)); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 1 {
				return c, fmt.Errorf("%s=%q: want a whole number of at least 1", n.name, v)
			}
			*n.dst = i
		}
	}
	return c, nil
}

func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = errors.New("not positive")
	}
	return d, err
}

// Configured reports whether a model is set: without one no model can be
// asked.
func (c Config) Configured() bool { return c.Model != "" }

// Validate checks the configuration before any request: a model and an
// http(s) base URL.
func (c Config) Validate() error {
	if c.Model == "" {
		return errors.New("no model configured: set --model or PROSE_MODEL (with OPENAI_API_KEY, and OPENAI_BASE_URL for a local or other provider)")
	}
	u, err := url.Parse(c.baseURL())
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an http(s) URL: set --base-url or OPENAI_BASE_URL, e.g. http://localhost:11434/v1",
			c.redact(c.BaseURL))
	}
	return nil
}

// CheckKey reports a missing API key where the server is OpenAI's own API,
// which answers nothing without one. A runner calls it before a run that
// will ask a model, so a run that could only fail at its first model call
// is refused before it starts; a run that asks none (a replay from a
// journal) skips it. A client without a key fails its requests to that
// API with the same message, without sending them.
func (c Config) CheckKey() error {
	if c.APIKey == "" && c.officialAPI() {
		return errors.New(c.noKeyMessage())
	}
	return nil
}

// noKeyMessage says that OpenAI's API needs a key, and the alternatives.
func (c Config) noKeyMessage() string {
	return fmt.Sprintf("no API key for %s: set OPENAI_API_KEY, or point --base-url/OPENAI_BASE_URL at another OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama, which needs no key)",
		c.displayURL())
}

func (c Config) baseURL() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

// officialAPI reports whether the base URL is OpenAI's own API, which
// answers nothing without a key.
func (c Config) officialAPI() bool {
	u, err := url.Parse(c.baseURL())
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// versioned reports whether the base URL's path names an API version
// (/v1, /api/v1, /openai/v1, /v1beta...), as OpenAI-compatible base URLs
// do.
func (c Config) versioned() bool {
	u, err := url.Parse(c.baseURL())
	if err != nil {
		return true
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}

// versionedGuess is the base URL a user probably meant when theirs has no
// version path: with /v1 added, and when it has a path of its own (Ollama's
// /api), also the server root with /v1.
func (c Config) versionedGuess() string {
	where := c.displayURL()
	u, err := url.Parse(where)
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return where + "/v1"
	}
	u.Path = "/v1"
	return where + "/v1 or " + u.String()
}

// displayURL is the base URL without user information, query or
// fragment.
func (c Config) displayURL() string {
	u, err := url.Parse(c.baseURL())
	if err != nil {
		return c.redact(c.baseURL())
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
	return c.redact(u.String())
}

// Secrets are the strings no output may show: the API key, and the user
// name, password and key-like query values of the base URL (see
// redact.URLSecrets: also the base64 "user:password" of the Basic auth
// header Go's HTTP client makes of them, which an echoing server puts in
// its reply), each also as it appears percent-encoded. A runner scrubs
// them from traces, journals and progress output.
func (c Config) Secrets() []string {
	var raw []string
	add := func(s string) {
		if len(s) >= 4 {
			raw = append(raw, s)
		}
	}
	add(c.APIKey)
	for _, s := range redact.URLSecrets(c.BaseURL) {
		add(s)
	}
	var out []string
	for _, s := range raw {
		out = append(out, s)
		for _, enc := range []string{url.QueryEscape(s), url.PathEscape(s), url.UserPassword("u", s).String()[2:]} {
			if enc != s && len(enc) >= 4 {
				out = append(out, enc)
			}
		}
		if dec, err := url.PathUnescape(s); err == nil && dec != s {
			add(dec)
			out = append(out, dec)
		}
	}
	return out
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Minute
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.JudgeMaxTokens <= 0 {
		c.JudgeMaxTokens = DefaultJudgeMaxTokens
	}
	if c.MaxValueBytes <= 0 {
		c.MaxValueBytes = DefaultMaxValueBytes
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 3
	} else if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.Backoff <= 0 {
		c.Backoff = 500 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 20 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = time.Minute
	}
	if c.Sleep == nil {
		c.Sleep = delegation.DefaultRuntime().Sleep
	}
	return c
}

// redact removes every secret of c (see Secrets) from s, with the one
// redactor (package redact) that every output uses.
func (c Config) redact(s string) string {
	return redact.New(c.Secrets()...).String(s)
}
