package render_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
)

// oneNode is the node "tally" of a project of one responsibility.
func oneNode(t *testing.T) *graph.Node {
	return nodeOf(t, "tally", "---\nname: tally\nkind: responsibility\n---\n\n# Tally\n\n### Maintains\n\n- `x`: a value\n")
}

// nodeOf is node name of a project of one file, NAME.prose.md holding text.
func nodeOf(t *testing.T, name, text string) *graph.Node {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name+".prose.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	return g.Node(name)
}

// A truth holding a lone surrogate escape is refused where it arrives,
// naming the node, as an event holding one is (canon.DecodeEvent): read,
// it would be U+FFFD. A whole pair is a character, and is taken.
func TestTruthWithLoneSurrogateIsRefused(t *testing.T) {
	n := oneNode(t)
	for _, c := range []struct {
		out, err string
	}{
		{`{"x": "\ud800"}`, `the output of tally: the escape \ud800 is half of a UTF-16 surrogate pair`},
		{`{"x": "a\udc00"}`, `the escape \udc00 is half`},
		{`{"x": "\ud83d\ude00"}`, ""},
	} {
		r, err := render.Parse("exec:cat >/dev/null; printf '%s\\n' '" + c.out + "'")
		if err != nil {
			t.Fatal(err)
		}
		ans, err := r.Render(context.Background(), &reconcile.Request{Node: n})
		switch {
		case c.err == "" && err != nil:
			t.Errorf("exec %s: %v", c.out, err)
		case c.err == "" && ans.Truth.(map[string]any)["x"] != "\U0001F600":
			t.Errorf("exec %s: truth %v", c.out, ans.Truth)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("exec %s: error %v, want %q", c.out, err, c.err)
		}

		srv := llmtest.NewServer(t, llmtest.Reply{Content: c.out})
		cl, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ans, err = (&render.Model{Client: cl}).Render(context.Background(), &reconcile.Request{Node: n})
		switch {
		case c.err == "" && err != nil:
			t.Errorf("model %s: %v", c.out, err)
		case c.err == "" && ans.Truth.(map[string]any)["x"] != "\U0001F600":
			t.Errorf("model %s: truth %v", c.out, ans.Truth)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), "the model's answer for tally: the escape")):
			t.Errorf("model %s: error %v, want the node named", c.out, err)
		}
	}
}
