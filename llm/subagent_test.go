package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

// A session's request: the agent's prompt and shape in the system
// prompt, the session's prompt then its context as compact JSON in the
// user message, the model the session names; its value is the reply as
// text, a reply that looks like JSON included.
func TestSubagentRequestAndValue(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("  {\"short\": \"yes\"}\n"))
	c, _ := newTestClient(t, srv, nil)
	s := NewSubagent(c, SubagentInfo{Name: "session: researcher", Agent: "researcher", Prompt: "Research thoroughly.",
		Shape: []string{"self: research", "prohibited: writing files"}, Model: "agent-model"})
	if s.ServiceName() != "session: researcher" {
		t.Errorf("ServiceName = %q", s.ServiceName())
	}
	var ex []delegation.Exchange
	v, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L9"), Attempt: 1,
		Args:      args(t, `{"prompt": "Research tides", "context": {"topic": "tides", "n": [1, 2]}}`),
		Exchanged: func(x delegation.Exchange) { ex = append(ex, x) }})
	if err != nil {
		t.Fatal(err)
	}
	if v != `{"short": "yes"}` {
		t.Errorf("value = %#v, want the reply as text", v)
	}
	req := srv.Requests()[0]
	if req.Model() != "agent-model" {
		t.Errorf("model %q", req.Model())
	}
	msgs := req.Messages()
	if len(msgs) != 2 {
		t.Fatalf("messages %+v", msgs)
	}
	for _, want := range []string{`the agent "researcher"`, "Your instructions:\nResearch thoroughly.", "- self: research\n- prohibited: writing files", "plain text"} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, msgs[0].Content)
		}
	}
	if want := "Research tides\n\nContext (JSON):\n{\"topic\":\"tides\",\"n\":[1,2]}"; msgs[1].Content != want {
		t.Errorf("user message:\n%s\nwant\n%s", msgs[1].Content, want)
	}
	if len(ex) != 1 || ex[0].Prompt != msgs[1].Content || ex[0].System != msgs[0].Content {
		t.Errorf("exchanges %+v", ex)
	}
}

// No context, or an empty one, sends the prompt alone; an empty reply
// and an empty prompt are errors, not values.
func TestSubagentPromptAlone(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("done"), llmtest.Text("  "))
	c, _ := newTestClient(t, srv, nil)
	s := NewSubagent(c, SubagentInfo{Name: `session "..."`})
	v, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L3"), Attempt: 1,
		Args: args(t, `{"prompt": "Say done", "context": {}}`)})
	if err != nil || v != "done" {
		t.Fatalf("v %v, err %v", v, err)
	}
	msgs := srv.Requests()[0].Messages()
	if msgs[1].Content != "Say done" || strings.Contains(msgs[0].Content, "instructions") || srv.Requests()[0].Model() != "judge-model" {
		t.Errorf("request %+v", msgs)
	}
	if _, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L4"), Attempt: 1,
		Args: args(t, `{"prompt": "Say nothing"}`)}); err == nil || !strings.Contains(err.Error(), "empty reply") {
		t.Errorf("empty reply: %v", err)
	}
	if _, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L5"), Attempt: 1,
		Args: args(t, `{"prompt": " "}`)}); err == nil || !strings.Contains(err.Error(), "prompt is empty") {
		t.Errorf("empty prompt: %v", err)
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests, want 2", srv.Count())
	}
}
