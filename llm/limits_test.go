package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

// TestRequestsCarryATokenCap: every request caps its output, a verdict
// lower than a slot's answer, each configurable.
func TestRequestsCarryATokenCap(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"reasoning": "r", "holds": true}`, Times: -1})
	c, _ := newTestClient(t, srv, nil)
	slot := NewSlotService(c, SlotInfo{Slot: "writer"})
	if _, err := slot.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: slot, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}, Schema: &Schema{Name: "verdict", JSON: VerdictSchema}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if n, k := reqs[0].MaxTokens(); n != DefaultMaxTokens || k != "max_tokens" {
		t.Errorf("slot request: %s = %d, want max_tokens = %d", k, n, DefaultMaxTokens)
	}
	if n, _ := reqs[1].MaxTokens(); n != DefaultJudgeMaxTokens {
		t.Errorf("verdict request: cap %d, want %d", n, DefaultJudgeMaxTokens)
	}

	cfg, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"PROSE_MAX_TOKENS": "300", "PROSE_JUDGE_MAX_TOKENS": "50", "PROSE_MAX_VALUE_BYTES": "1000"}[k]
	})
	if err != nil || cfg.MaxTokens != 300 || cfg.JudgeMaxTokens != 50 || cfg.MaxValueBytes != 1000 {
		t.Errorf("ConfigFromEnv: %+v, %v", cfg, err)
	}
	if _, err := ConfigFromEnv(func(k string) string { return map[string]string{"PROSE_MAX_TOKENS": "lots"}[k] }); err == nil ||
		!strings.Contains(err.Error(), "PROSE_MAX_TOKENS") {
		t.Errorf("a bad PROSE_MAX_TOKENS: %v", err)
	}
}

// TestTokenCapParameter: reasoning models get max_completion_tokens (go-openai
// refuses max_tokens for them); a server that rejects max_tokens gets
// max_completion_tokens from then on, and one that rejects both, neither.
func TestTokenCapParameter(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "ok", Times: -1})
	c, _ := newTestClient(t, srv, func(c *Config) { c.Model = "o3-mini" })
	if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	if _, k := srv.Requests()[0].MaxTokens(); k != "max_completion_tokens" {
		t.Errorf("o3-mini: the cap is sent as %q", k)
	}

	srv = llmtest.NewServer(t,
		llmtest.Status(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
		llmtest.Text("first"), llmtest.Text("second"))
	c, _ = newTestClient(t, srv, nil)
	for _, want := range []string{"first", "second"} {
		reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}})
		if err != nil || reply.Content != want {
			t.Fatalf("reply %q, err %v", reply.Content, err)
		}
	}
	var params []string
	for _, r := range srv.Requests() {
		_, k := r.MaxTokens()
		params = append(params, k)
	}
	if strings.Join(params, " ") != "max_tokens max_completion_tokens max_completion_tokens" {
		t.Errorf("caps sent as %v", params)
	}

	srv = llmtest.NewServer(t,
		llmtest.Status(400, "unknown field max_tokens"), llmtest.Status(400, "unknown field max_completion_tokens"), llmtest.Text("ok"))
	c, _ = newTestClient(t, srv, nil)
	if reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Content: "q"}}}); err != nil || reply.Content != "ok" {
		t.Fatalf("reply %q, err %v", reply.Content, err)
	}
	if n, k := srv.Requests()[2].MaxTokens(); n != 0 || k != "" {
		t.Errorf("after both were refused the cap is still sent: %s", k)
	}
}

// TestCutReplyIsItsOwnError: a slot reply cut at the token cap fails the
// attempt with a message naming the cap and the setting.
func TestCutReplyIsItsOwnError(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"draft": "the same words the same words`, FinishReason: "length"})
	c, _ := newTestClient(t, srv, func(c *Config) { c.MaxTokens = 64 })
	slot := NewSlotService(c, SlotInfo{Slot: "writer"})
	_, err := slot.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: slot, Attempt: 1})
	if err == nil || !strings.Contains(err.Error(), "cut off at the output limit of 64 tokens") || !strings.Contains(err.Error(), "PROSE_MAX_TOKENS") {
		t.Fatalf("err = %v", err)
	}
}

// TestPromptBoundsEarlierValues: a long earlier value is cut in the next
// prompt, with a marker naming it; a request that fails anyway says
// which values were cut.
func TestPromptBoundsEarlierValues(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("fine"), llmtest.Status(400, "context length exceeded"))
	c, _ := newTestClient(t, srv, func(c *Config) { c.MaxValueBytes = 1000 })
	slot := NewSlotService(c, SlotInfo{Slot: "editor"})
	args := delegation.NewObject()
	args.Set("prompt", "Improve the draft. "+strings.Repeat("p", 5000))
	args.Set("draft", strings.Repeat("ab ", 1<<18))
	nested := delegation.NewObject()
	nested.Set("text", strings.Repeat("z", 3000))
	args.Set("notes", nested)
	args.Set("round", int64(2))
	call := func() error {
		_, err := slot.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: slot, Attempt: 1, Args: args})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	user := srv.Requests()[0].Messages()[1].Content
	if len(user) > 4000 {
		t.Errorf("the prompt carries %d bytes; each value should be bounded by 1000", len(user))
	}
	for _, want := range []string{`the argument \"draft\" has 786432 bytes; only the first 1000 are shown`,
		`the argument "prompt" has 5019 bytes`, `the argument \"notes\" has`, `"round":2`, "Improve the draft."} {
		if !strings.Contains(user, want) {
			t.Errorf("the prompt lacks %q:\n%.600s", want, user)
		}
	}
	err := call()
	if err == nil || !strings.Contains(err.Error(), "draft (786432 bytes)") || !strings.Contains(err.Error(), "PROSE_MAX_VALUE_BYTES") {
		t.Errorf("err = %v", err)
	}
}
