package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

func args(t *testing.T, js string) *delegation.Object {
	t.Helper()
	v, err := delegation.FromJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*delegation.Object)
}

var certifierInfo = SlotInfo{
	Pattern: "ratchet", Description: "Advance step by step; certified steps are never rolled back.",
	Slot: "certifier", Requires: "task_brief, certified_progress, proposed_step",
	Ensures: "a verdict on the proposed step", Role: "certifies or rejects each proposed step",
}

func TestSlotServicePrompts(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("```json\n{\"verdict\": \"certify\", \"reason\": \"sound\"}\n```"))
	c, _ := newTestClient(t, srv, nil)
	s := NewSlotService(c, certifierInfo)
	if s.ServiceName() != "certifier" {
		t.Errorf("ServiceName = %q", s.ServiceName())
	}
	v, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L9/1"), Attempt: 1,
		Args: args(t, `{"task_brief": "prove it", "prompt": "Judge the step.", "proposed_step": {"n": 2}}`)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := delegation.ToJSON(v)
	if string(got) != `{"verdict":"certify","reason":"sound"}` {
		t.Errorf("value = %s", got)
	}
	msgs := srv.Requests()[0].Messages()
	if len(msgs) != 2 {
		t.Fatalf("messages %+v", msgs)
	}
	for _, want := range []string{`"certifier" slot`, `"ratchet"`, "never rolled back", "certifies or rejects",
		"proposed_step", "a verdict on the proposed step", `"verdict" field`} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, msgs[0].Content)
		}
	}
	user := msgs[1].Content
	if !strings.HasPrefix(user, "Judge the step.\n\nArguments (JSON):\n") || !strings.Contains(user, `"task_brief":"prove it"`) ||
		strings.Contains(user, `"prompt"`) {
		t.Errorf("user message:\n%s", user)
	}
	if temp, ok := srv.Requests()[0].Temperature(); !ok || temp != 0 {
		t.Errorf("temperature %v %v", temp, ok)
	}
}

func TestSlotServiceModelOverrideAndText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("  A plain answer.\n"))
	c, _ := newTestClient(t, srv, nil)
	s := NewSlotService(c, SlotInfo{Slot: "worker", Name: "workers[2]", Model: "other-model"})
	v, err := s.Call(context.Background(), &delegation.CallRequest{Args: args(t, `{"task_brief": "x"}`)})
	if err != nil || v != "A plain answer." {
		t.Fatalf("value %#v, err %v", v, err)
	}
	if s.ServiceName() != "workers[2]" || srv.Requests()[0].Model() != "other-model" {
		t.Errorf("name %q, model %q", s.ServiceName(), srv.Requests()[0].Model())
	}
	if strings.Contains(srv.Requests()[0].Messages()[0].Content, `"verdict" field`) {
		t.Error("a worker is asked for verdicts")
	}
}

func TestSlotServiceErrors(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("   "), llmtest.Status(404, "no such model"))
	c, _ := newTestClient(t, srv, nil)
	s := NewSlotService(c, SlotInfo{Slot: "worker"})
	if _, err := s.Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()}); err == nil || !strings.Contains(err.Error(), "empty reply") {
		t.Errorf("empty reply: %v", err)
	}
	_, err := s.Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
	var e *Error
	if !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("404: %v", err)
	}
}

func TestSlotUserMessage(t *testing.T) {
	cases := map[string]string{
		`{"prompt": "Only this."}`: "Only this.",
		// Compact: indentation is tokens the model is paid for.
		`{"a": 1}`:                `{"a":1}`,
		`{"prompt": 3, "b": "x"}`: `{"prompt":3,"b":"x"}`,
		// The prompt leads wherever it stands among the arguments.
		`{"a": 1, "prompt": "Do X."}`: "Do X.\n\nArguments (JSON):\n{\"a\":1}",
	}
	for in, want := range cases {
		got, err := SlotUserMessage(args(t, in))
		if err != nil || got != want {
			t.Errorf("SlotUserMessage(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, _ := SlotUserMessage(nil); got != "{}" {
		t.Errorf("nil args: %q", got)
	}
}

func TestParseReply(t *testing.T) {
	cases := map[string]string{
		`{"a": 1}`:                 `{"a":1}`,
		"```json\n[1, 2]\n```":     `[1,2]`,
		"```\n{\"b\": true}\n```":  `{"b":true}`,
		"```python\nprint(1)\n```": `"print(1)"`,
		"  hello  ":                `"hello"`,
		`{"a": 1} and some words`:  `{"a":1}`,
		"42":                       `42`,
		// One JSON object with short chat around it is the reply.
		"Sure! Here is my answer: {\"verdict\": \"accept\"}":         `{"verdict":"accept"}`,
		"Sure! {\"a\": {\"b\": [1]}}\nLet me know if you need more.": `{"a":{"b":[1]}}`,
		strings.Repeat("y", 300) + " {\"a\": 1}":                     `"` + strings.Repeat("y", 300) + ` {\"a\": 1}"`,
		"Use {name} here: {\"a\": 1}":                                `"Use {name} here: {\"a\": 1}"`,
		"```markdown\n# Title\n\nBody with `code`.\n```":             `"# Title\n\nBody with ` + "`code`" + `."`,
		"```\nplain text\n```":                                       `"plain text"`,
		"Intro\n```go\nx := 1\n```":                                  "\"Intro\\n```go\\nx := 1\\n```\"",
		// One ```json fence after a short lead-in is the reply.
		"Here is the result:\n```json\n{\"ok\": 1}\n```":        `{"ok":1}`,
		"Here:\n```JSON\n[1]\n```\nDone.":                       `[1]`,
		"<think>hm {\"x\": 1}</think>\n{\"y\": 2}":              `{"y":2}`,
		"[1] Smith et al., 2020.":                               `"[1] Smith et al., 2020."`,
		"{\"a\": 1}\n\nHope this helps!":                        `{"a":1}`,
		"{\"a\": 1} use {name} there":                           `{"a":1}`,
		strings.Repeat("x", 300) + "\n```json\n{\"a\": 1}\n```": `"` + strings.Repeat("x", 300) + "\\n```json\\n{\\\"a\\\": 1}\\n```\"",
	}
	for in, want := range cases {
		v, err := ParseReply(in)
		got, _ := delegation.ToJSON(v)
		if err != nil || string(got) != want {
			t.Errorf("ParseReply(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
}

// A reply that attempts JSON and is not one value is refused, naming its
// problem, never read as text or as its first part.
func TestParseReplyRefusesWhatIsNoOneValue(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}{"a": 2}`:                            "holds more than one JSON value (the second at byte 8)",
		"{\"a\": 1}\n{\"a\": 2}":                      "holds more than one JSON value",
		"[1, 2]\n[3]":                                 "holds more than one JSON value",
		`{"a": 1, "b": [1, 2`:                         "is JSON cut off before its end",
		"```json\n{\"a\": 1,\n```":                    "is JSON cut off before its end",
		"Sure! Here it is: {\"a\": 1, \"b\": ":        "holds a JSON object cut off before its end",
		"Compare {\"a\": 1} with {\"a\": 2}.":         "holds more than one JSON object",
		"{\"a\": 1} and also {\"b\": 2}":              "holds more than one JSON object",
		"Two:\n```json\n1\n```\nand\n```json\n2\n```": "holds 2 ```json blocks",
		"Here:\n```json\n{\"a\": 1,}\n```\nDone.":     "has a ```json block that is no single JSON value",
		`{"a": 1,}`:        "starts as a JSON object but is no valid JSON",
		`{"a": 1, "a": 2}`: "is JSON that cannot be read",
		`{"a": 1}` + "\n\n" + strings.Repeat("More words. ", 30): "is a JSON object followed by 359 bytes of text",
	} {
		v, err := ParseReply(in)
		var re *ReplyError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseReply(%q) = %v, %v; want a ReplyError %q", in, v, err, want)
		}
	}
}

// TestSlotTimeoutSaysWhat: a call whose time runs out while the model is
// still answering says so, and the error still wraps the context's.
func TestSlotTimeoutSaysWhat(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "late", Delay: llmtest.Duration(10 * time.Minute)})
	c, _ := newTestClient(t, srv, nil)
	s := NewSlotService(c, certifierInfo)
	// Long enough for a loaded machine to send the request first.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := s.Call(ctx, &delegation.CallRequest{Path: delegation.MustParsePath("L9/1"), Attempt: 1, Args: args(t, `{"task_brief": "x"}`)})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "had not answered when the call's time ran out") {
		t.Errorf("err = %v", err)
	}
}

// A slot's model answering two JSON values, or JSON cut off, fails the
// attempt with the reply's problem (so the call's retries and on_fail
// apply), through the real client.
func TestSlotRefusesAReplyThatIsNoOneValue(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text(`{"certified": true}{"certified": false}`), llmtest.Text(`{"certified": tr`))
	c, _ := newTestClient(t, srv, nil)
	s := NewSlotService(c, certifierInfo)
	for _, want := range []string{"holds more than one JSON value", "is JSON cut off before its end"} {
		v, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L9/1"), Attempt: 1, Args: args(t, `{"task_brief": "x"}`)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, %v; want the error %q", v, err, want)
		}
	}
}
