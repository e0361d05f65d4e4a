package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
)

// JudgeOptions configures a ModelJudge.
type JudgeOptions struct {
	// Pattern is the pattern's name; Invariants its invariants (free text),
	// both given to the model as context.
	Pattern    string
	Invariants []string
	// Model overrides the client's model ("" keeps it).
	Model string
	// MaxValueBytes caps the JSON of each value shown to the model; longer
	// values are cut and marked as truncated (0 means 8 KiB).
	MaxValueBytes int
	// Asks is how many times one judgment is asked when the reply cannot
	// be read as a verdict (0 means 2).
	Asks int
}

// VerdictSchema is the JSON Schema of a judge's reply.
var VerdictSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"reasoning":{"type":"string","description":"one or two sentences: why the condition holds or not"},` +
	`"holds":{"type":"boolean","description":"true when the condition holds"}},` +
	`"required":["reasoning","holds"],"additionalProperties":false}`)

// ModelJudge is a delegation.Judge that asks a model (the last step of the
// judging order, after package judge's deterministic rules). Verdicts are
// cached for the judge's lifetime (one run) by model, condition text and
// values; concurrent identical judgments ask once.
//
// A reply that is not a readable verdict is asked again (Asks times in
// all). Still unreadable, a fail-closed judgment gets Judgment.SafeHolds
// (the answer that does not proceed) with Reasoning saying so; any other
// judgment gets an error naming the condition. Transport errors (no
// server, a bad key) are always errors: the guarded step does not proceed
// either way.
type ModelJudge struct {
	client *Client
	opts   JudgeOptions
	mu     sync.Mutex
	cache  map[string]*flight
}

type flight struct {
	done chan struct{}
	v    delegation.Verdict
	err  error
}

// NewModelJudge returns a judge asking c's model.
func NewModelJudge(c *Client, opts JudgeOptions) *ModelJudge {
	if opts.MaxValueBytes <= 0 {
		opts.MaxValueBytes = 8 << 10
	}
	if opts.Asks <= 0 {
		opts.Asks = 2
	}
	if opts.Model == "" {
		opts.Model = c.Model()
	}
	return &ModelJudge{client: c, opts: opts, cache: map[string]*flight{}}
}

// Judge implements delegation.Judge.
func (m *ModelJudge) Judge(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j == nil || j.Cond == nil {
		return delegation.Verdict{}, errors.New("judge: no condition")
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%v\x00%q", m.opts.Model, j.Cond.Text, ValuesDigest(j.Values), j.FailClosed, j.Options)
	for {
		m.mu.Lock()
		f, hit := m.cache[key]
		if !hit {
			f = &flight{done: make(chan struct{})}
			m.cache[key] = f
		}
		m.mu.Unlock()
		if !hit {
			return m.lead(ctx, key, f, j)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return delegation.Verdict{}, ctx.Err()
		}
		if f.err == nil {
			m.client.meter.cached.Add(1)
			v := f.v
			v.Asked, v.Cached, v.TokensIn, v.TokensOut = false, true, 0, 0
			v.ResponseID, v.Temperature, v.MaxTokens = "", nil, 0
			return v, nil
		}
		// The leader failed and its entry is gone: ask anew, unless the
		// failure is ours to report.
		if ctx.Err() != nil {
			return delegation.Verdict{}, ctx.Err()
		}
		if !isContextError(f.err) {
			return delegation.Verdict{}, f.err
		}
	}
}

// lead asks the model for a judgment others may be waiting on.
func (m *ModelJudge) lead(ctx context.Context, key string, f *flight, j *delegation.Judgment) (delegation.Verdict, error) {
	f.v, f.err = m.ask(ctx, j)
	if f.err != nil {
		m.mu.Lock()
		delete(m.cache, key)
		m.mu.Unlock()
	}
	close(f.done)
	return f.v, f.err
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// ask puts the judgment to the model, asking again when the reply is not
// a readable verdict.
func (m *ModelJudge) ask(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	m.client.meter.judged.Add(1)
	req := ChatRequest{
		Model:    m.opts.Model,
		System:   m.systemPrompt(j),
		Messages: []Message{{Role: "user", Content: m.userPrompt(j)}},
		Schema:   &Schema{Name: "verdict", JSON: VerdictSchema},
		// Judgments are asked at temperature 0 whatever the client's default.
		Temperature: new(float64),
	}
	read := func(reply string) (delegation.Verdict, bool) {
		holds, why, ok := ParseVerdict(reply)
		return delegation.Verdict{Holds: holds, Reasoning: why}, ok
	}
	what, again := "judging condition", `That is not the JSON object asked for. Reply with only {"reasoning": "...", "holds": true} or {"reasoning": "...", "holds": false}.`
	if j.IsChoice() {
		req, read = m.choiceRequest(req, j) // choice.go
		what, again = "picking an option of the choice", `That is not the JSON object asked for. Reply with only {"reasoning": "...", "pick": "LABEL"}, LABEL exactly one of the option labels.`
	}
	v := delegation.Verdict{Asked: true, Model: m.opts.Model}
	var last string
	var truncated bool
	for i := 0; i < m.opts.Asks; i++ {
		reply, err := m.client.Chat(ctx, req)
		if err != nil {
			if isContextError(err) {
				return v, err
			}
			return v, fmt.Errorf("%s: %s %q: %w", j.Pos, what, j.Cond.Text, err)
		}
		v.Model = firstNonEmpty(reply.Model, v.Model)
		v.TokensIn += reply.TokensIn
		v.TokensOut += reply.TokensOut
		v.ResponseID, v.Temperature, v.MaxTokens = reply.ID, reply.Temperature, reply.MaxTokens
		if got, ok := read(reply.Content); ok {
			v.Holds, v.Pick, v.Reasoning = got.Holds, got.Pick, m.client.Redact(got.Reasoning)
			return v, nil
		}
		last, truncated = reply.Content, reply.Truncated
		req.Messages = append(req.Messages,
			Message{Role: "assistant", Content: reply.Content},
			Message{Role: "user", Content: again})
	}
	return m.unreadable(j, v, last, truncated)
}

func (m *ModelJudge) unreadable(j *delegation.Judgment, v delegation.Verdict, last string, truncated bool) (delegation.Verdict, error) {
	why := fmt.Sprintf("the model's verdict could not be read after %d asks", m.opts.Asks)
	if j.IsChoice() {
		why = fmt.Sprintf("the model's pick could not be read as exactly one of the options %q after %d asks", j.Options, m.opts.Asks)
	}
	if truncated {
		why += ` (the reply was cut off at the output token limit: finish_reason "length")`
	}
	if j.FailClosed {
		v.Holds = j.SafeHolds()
		v.Reasoning = fmt.Sprintf("%s (%q); failing closed: the guarded step does not proceed",
			why, excerpt(m.client.Redact(last), 80))
		return v, nil
	}
	kind := "condition"
	if j.IsChoice() {
		kind = "choice"
	}
	return v, &UnreadableVerdictError{msg: fmt.Sprintf("%s: %s %q: %s; last reply: %q",
		j.Pos, kind, j.Cond.Text, why, excerpt(m.client.Redact(last), 200))}
}

// UnreadableVerdictError is the error of a judgment whose model answered,
// but never with a readable verdict. Unlike a configuration or transport
// failure it is about this judgment's data alone, so a `try` around the
// condition may catch it: Catchable says so to an evaluator that asks.
type UnreadableVerdictError struct{ msg string }

func (e *UnreadableVerdictError) Error() string { return e.msg }

// Catchable reports that a `try` may catch the error.
func (e *UnreadableVerdictError) Catchable() bool { return true }

// ParseVerdict reads {"reasoning": ..., "holds": ...} from a reply,
// tolerating code fences and prose around the object: the first JSON
// object with a boolean (or "true"/"false") holds wins. A reply that is
// just true, false, yes or no is read too. A reasoning model's leading
// <think> block is skipped.
func ParseVerdict(content string) (holds bool, reasoning string, ok bool) {
	content, _ = splitThinking(content)
	if h, ok := verdictHolds(strings.Trim(content, " \t\r\n.!\"`")); ok {
		return h, "", true
	}
	// At most 64 candidate objects: a long reply full of braces is no
	// verdict, and each try decodes the rest of the text. Every object
	// carrying "holds" is read: two that disagree ("{holds: true} ... on
	// reflection {holds: false}") are no verdict (decided: unreadable, so
	// a guard fails closed, rather than the first one winning).
	found := false
	for i, tries := strings.IndexByte(content, '{'), 0; i >= 0 && tries < 64; tries++ {
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(content[i:]))
		if dec.Decode(&obj) == nil {
			if h, ok := verdictHolds(obj["holds"]); ok {
				switch {
				case !found:
					r, _ := obj["reasoning"].(string)
					holds, reasoning, found = h, strings.TrimSpace(r), true
				case h != holds:
					return false, "", false
				}
			}
		}
		next := strings.IndexByte(content[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return holds, reasoning, found
}

func verdictHolds(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	}
	return false, false
}

// ValuesDigest is a short digest of a judgment's values (for the verdict
// cache and the trace).
func ValuesDigest(values *delegation.Object) string {
	var b []byte
	if values != nil {
		var err error
		if b, err = delegation.ToJSON(values); err != nil {
			b = fmt.Appendf(nil, "%v", values.Keys())
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// truncateJSON cuts s to at most n bytes on a rune boundary.
func truncateJSON(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
