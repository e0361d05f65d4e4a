package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

// TestRenderSchemaIsLoose: a render's schema leaves its outputs untyped
// (any JSON value) and, with declared errors, has a choice at its root:
// OpenAI's strict mode refuses both, so the render asks for the schema
// without it, while the judge's fully typed verdict stays strict.
func TestRenderSchemaIsLoose(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"summary": "short"}))
	c, _ := newTestClient(t, srv, nil)
	info := RenderInfo{Name: "summarize", Kind: "function", Pos: "f.prose.md:1:1",
		Returns: []Field{{Name: "summary", Description: "a short summary"}},
		Errors:  []Field{{Name: "empty-input", Description: "nothing to summarize"}}}
	v, err := NewRenderService(c, info).Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L3"), Attempt: 1, Args: delegation.NewObject()})
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := v.(*delegation.Object); !ok || o.Len() != 1 {
		t.Errorf("value %v", v)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	rf := reqs[0].ResponseFormat()
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "render" || js["schema"] == nil {
		t.Fatalf("response_format = %v", rf)
	}
	if js["strict"] == true {
		t.Errorf("a render's schema is sent strict: %v", rf)
	}
}

// TestRenderSchemaDeclaredTypes: outputs declared with a type
// (- `total` (integer): ...) are asked for with that JSON type, untyped
// ones stay any value; the prompt states the types and the sentences of
// Parameters that name no input.
func TestRenderSchemaDeclaredTypes(t *testing.T) {
	info := RenderInfo{Name: "price", Kind: "function",
		Parameters: []Field{{Name: "item-count", Type: "integer", Description: "how many"}},
		Needs:      []string{"The price list of the shop"},
		Returns: []Field{{Name: "total", Type: "integer", Description: "what to pay"},
			{Name: "tags", Type: "string[]", Description: "labels"},
			{Name: "note", Description: "free"},
			{Name: "level", Type: `"low" | "high"`, Description: "a set of words"}}}
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(RenderSchema(info).JSON, &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties["total"]["type"]; got != "integer" {
		t.Errorf("total: type %v, want integer", got)
	}
	if items, _ := schema.Properties["tags"]["items"].(map[string]any); schema.Properties["tags"]["type"] != "array" || items["type"] != "string" {
		t.Errorf("tags: %v, want an array of strings", schema.Properties["tags"])
	}
	if enum, _ := schema.Properties["level"]["enum"].([]any); schema.Properties["level"]["type"] != "string" || len(enum) != 2 || enum[0] != "low" || enum[1] != "high" {
		t.Errorf("level: %v, want a string of the words low, high", schema.Properties["level"])
	}
	if _, typed := schema.Properties["note"]["type"]; typed {
		t.Errorf("note is untyped, schema %v", schema.Properties["note"])
	}
	p := RenderSystemPrompt(info)
	for _, want := range []string{"item-count (integer): how many", "- The price list of the shop"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}
