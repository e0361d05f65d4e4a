package lint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/lint"
)

const upstreamExecution = "### Execution\n\n```prose\nlet r = read_subscription(\"renewal-risk\", \"risk\")\nlet hot = filter r.accounts where level == \"high\"\nreturn call notify with { accounts: hot }\n```\n"

// A responsibility whose Execution uses upstream's idioms is one warning
// naming them and how the node is rendered; a function's stays an error.
func TestExecutionNotProse(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"watch.prose.md": "---\nname: vendor-watch\nkind: responsibility\n---\n\n# Vendor watch\n\n### Requires\n\n- `risk`: the risk\n\n### Maintains\n\n- `watch`: the list\n\n" + upstreamExecution,
		"fn.prose.md":    "---\nname: notify-all\nkind: function\n---\n\n# Notify all\n\n### Parameters\n\n- `risk`: the risk\n\n### Returns\n\n- `sent`: what was sent\n\n" + upstreamExecution,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := lint.Paths([]string{filepath.Join(dir, "watch.prose.md")}, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diags) != 1 {
		t.Fatalf("findings:\n%s", res.Diags)
	}
	d := res.Diags[0]
	for _, want := range []string{"the Execution of vendor-watch is not ProseScript", "`read_subscription(NODE, FACET)`", "`filter X where C`", "`call X with {...}`",
		"vendor-watch is rendered by what --slot vendor-watch=... binds it to, else by the model, given its Execution as instructions"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, d.Message)
		}
	}
	if d.Line != 19 || d.Code != lint.CodeExecutionNotProse || res.HasErrors() {
		t.Errorf("finding %s", d)
	}
	res, err = lint.Paths([]string{filepath.Join(dir, "fn.prose.md")}, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasErrors() {
		t.Errorf("a function's Execution that does not parse is not an error:\n%s", res.Diags)
	}
}
