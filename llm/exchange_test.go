package llm

import (
	"context"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

// An exchange says what its request sent, as the server received it: the
// temperature and output cap, "json" for a render (it asks for a
// schema) and "text" for a slot, and the reply's id; a server that
// refuses temperature gets none, and the exchange says none was sent.
func TestExchangeSaysWhatWasSent(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"summary": "s"}`},
		llmtest.Status(400, "Unsupported value: 'temperature' does not support 0.3 with this model."),
		llmtest.Text("plain"))
	c, _ := newTestClient(t, srv, func(c *Config) { c.MaxTokens = 3000; c.JudgeMaxTokens = 100; c.Temperature = 0.3 })
	var got []delegation.Exchange
	call := func(svc delegation.Caller) {
		t.Helper()
		_, err := svc.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Attempt: 1,
			Exchanged: func(x delegation.Exchange) { got = append(got, x) }})
		if err != nil {
			t.Fatal(err)
		}
	}
	call(NewRenderService(c, RenderInfo{Name: "summarizer", Kind: "function", Pos: "f.prose.md:1:7", Returns: []Field{{Name: "summary"}}}))
	call(NewSlotService(c, SlotInfo{Slot: "writer"}))
	reqs := srv.Requests()
	if len(got) != 2 || len(reqs) != 3 {
		t.Fatalf("%d exchanges, %d requests; want 2 and 3", len(got), len(reqs))
	}
	render, slot := got[0], got[1]
	temp, ok := reqs[0].Temperature()
	maxTokens, _ := reqs[0].MaxTokens()
	if !ok || render.Temperature == nil || *render.Temperature != temp || temp != 0.3 ||
		render.MaxTokens != maxTokens || maxTokens != 3000 || render.OutputType != "json" || render.ResponseID != "chatcmpl-llmtest" {
		t.Errorf("render exchange %+v (temperature %v), sent temperature %v, max tokens %d", render, render.Temperature, temp, maxTokens)
	}
	if _, ok := reqs[2].Temperature(); ok {
		t.Fatalf("the request after the refusal still sent a temperature: %s", reqs[2].Body)
	}
	maxTokens, _ = reqs[2].MaxTokens()
	if slot.Temperature != nil || slot.MaxTokens != maxTokens || maxTokens != 3000 || slot.OutputType != "text" || slot.ResponseID != "chatcmpl-llmtest" {
		t.Errorf("slot exchange %+v (temperature %v), sent max tokens %d", slot, slot.Temperature, maxTokens)
	}
}
