package callgraph_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/runhost"
)

// Conditions in a claim form (`items is empty`, `items contains "p"`,
// `items has at most 2 items`) are decided from the data, as prose test
// decides its expectations: a run with a model configured asks it nothing
// (issue 18, item 33), and a run without one is not refused.
func TestClaimFormConditionsNeedNoModel(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"f.prose.md": fn("f", "items", "kind", exe(
			"if items is empty:\n  return \"none\"\nif items contains \"p\":\n  return \"has p\"\nif items has at most 2 items:\n  return \"few\"\nreturn \"many\"")),
	})
	srv := llmtest.NewServer(t, llmtest.Verdict(true, "the model was asked"))
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ items, want string }{
		{`[]`, `{"kind":"none"}`},
		{`["a", "p"]`, `{"kind":"has p"}`},
		{`["a", "b"]`, `{"kind":"few"}`},
		{`["a", "b", "c"]`, `{"kind":"many"}`},
	} {
		for _, judge := range []bool{true, false} {
			opts := runhost.RunOptions{Path: filepath.Join(dir, "f.prose.md"), Env: &bind.Env{},
				Bindings: bind.Settings{InputJSON: `{"items": ` + tc.items + `}`}}
			if judge {
				opts.ModelJudge = llm.NewModelJudge(c, llm.JudgeOptions{})
			}
			v, err := runhost.Run(context.Background(), opts)
			if err != nil {
				t.Fatalf("items %s (model judge %v): %v", tc.items, judge, err)
			}
			if got := asJSON(t, v); got != tc.want {
				t.Errorf("items %s (model judge %v): %s, want %s", tc.items, judge, got, tc.want)
			}
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d judge requests, want 0: every condition is in a claim form", n)
	}
}
