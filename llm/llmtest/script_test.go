package llmtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// chat is a test command: `chat MESSAGE` asks the model configured by the
// script's environment and prints the reply.
func chat(ts *testscript.TestScript, neg bool, args []string) {
	cfg, err := llm.ConfigFromEnv(ts.Getenv)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	cfg.Backoff = 10 * time.Millisecond
	c, err := llm.NewClient(cfg, nil)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	reply, err := c.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: args[0]}}})
	if (err != nil) != neg {
		ts.Fatalf("chat: reply %q, err %v", reply.Content, err)
	}
	if err != nil {
		ts.Stderr().Write([]byte(err.Error() + "\n"))
		return
	}
	ts.Stdout().Write([]byte(reply.Content + "\n"))
}

func TestScriptServer(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"openai-server": llmtest.ScriptServer,
			"chat":          chat,
		},
	})
}

func TestParseReplies(t *testing.T) {
	rs, err := llmtest.ParseReplies([]byte(`[{"content": "a", "delay": "250ms"}, {"status": 429, "delay": 1.5}]`))
	if err != nil || len(rs) != 2 || rs[0].Delay != llmtest.Duration(250*time.Millisecond) ||
		rs[1].Status != 429 || rs[1].Delay != llmtest.Duration(1500*time.Millisecond) {
		t.Errorf("array: %+v, %v", rs, err)
	}
	rs, err = llmtest.ParseReplies([]byte("# comment\n{\"content\": \"a\"}\n\n{\"match\": \"x\", \"times\": -1}\n"))
	if err != nil || len(rs) != 2 || rs[1].Match != "x" || rs[1].Times != -1 {
		t.Errorf("lines: %+v, %v", rs, err)
	}
	if _, err := llmtest.ParseReplies([]byte(`{"contnet": "typo"}`)); err == nil {
		t.Error("unknown field accepted")
	}
}
