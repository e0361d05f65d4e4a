package llm

import (
	"context"
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
