package llm

import (
	"context"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

// BenchmarkChatRoundTrip measures one chat request through go-openai, the
// retry transport and a loopback scripted server.
func BenchmarkChatRoundTrip(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.Reply{Content: "ok", Times: -1})
	c, err := NewClient(Config{APIKey: testKey, BaseURL: srv.URL, Model: "m"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	req := ChatRequest{System: "s", Messages: []Message{{Content: "q"}}, Schema: verdictSchema}
	for b.Loop() {
		if _, err := c.Chat(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJudgeCached measures a judgment answered from the run's cache.
func BenchmarkJudgeCached(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.Verdict(true, "ok"))
	c, err := NewClient(Config{APIKey: testKey, BaseURL: srv.URL, Model: "m"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	mj := NewModelJudge(c, JudgeOptions{})
	j := judgment(b, certifiesCond, `{"verdict": "a long prose verdict that needs a model"}`)
	for b.Loop() {
		if v, err := mj.Judge(context.Background(), j); err != nil || !v.Holds {
			b.Fatal(v, err)
		}
	}
}
