package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

// A render takes the slot cap (PROSE_MAX_TOKENS), not a verdict's,
// although it asks for a schema; a reply cut at it names the cap and the
// variable to raise; and the exchange reaches the call's recorder (the
// trace's call.model record) with its tokens.
func TestRenderTakesTheSlotCap(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"summary": "s"}`, TokensIn: 11, TokensOut: 3}, llmtest.Reply{Content: `{"summary": "the same`, FinishReason: "length"})
	c, _ := newTestClient(t, srv, func(c *Config) { c.MaxTokens = 3000; c.JudgeMaxTokens = 100 })
	info := RenderInfo{Name: "summarizer", Kind: "function", Pos: "f.prose.md:1:7", Returns: []Field{{Name: "summary"}}}
	svc := NewRenderService(c, info)
	var got []delegation.Exchange
	call := func() error {
		_, err := svc.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Attempt: 1,
			Exchanged: func(x delegation.Exchange) { got = append(got, x) }})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	if n, _ := srv.Requests()[0].MaxTokens(); n != 3000 {
		t.Errorf("render request cap %d, want the slot cap 3000", n)
	}
	err := call()
	if err == nil || !strings.Contains(err.Error(), "cut off at the output limit of 3000 tokens") || !strings.Contains(err.Error(), "PROSE_MAX_TOKENS") ||
		!strings.Contains(err.Error(), "f.prose.md:1:7") {
		t.Errorf("cut reply: %v", err)
	}
	if len(got) != 2 || got[0].TokensIn != 11 || got[0].TokensOut != 3 || got[0].Reply != `{"summary": "s"}` || got[0].System == "" || got[1].FinishReason != "length" {
		t.Errorf("exchanges: %+v", got)
	}
}
