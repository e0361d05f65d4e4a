package render_test

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
)

// A model rendering a truth with a `valid_until` is told the form the
// clock reads (a truth whose horizon it cannot read fails its render), in
// the prompt and in the answer's schema.
func TestModelIsToldTheHorizonForm(t *testing.T) {
	n := nodeOf(t, "roster", "---\nname: roster\nkind: responsibility\n---\n\n# Roster\n\n### Maintains\n\n- `people`: who is in\n- `valid_until`: when to check again\n")
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"people": ["ada"], "valid_until": "2999-01-01T00:00:00Z"}`})
	cl, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&render.Model{Client: cl}).Render(context.Background(), &reconcile.Request{Node: n}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[0].Body)
	if n := strings.Count(body, "an RFC 3339 time with its zone"); n < 2 {
		t.Errorf("the form is said %d times (want the prompt and the schema):\n%s", n, body)
	}
}
