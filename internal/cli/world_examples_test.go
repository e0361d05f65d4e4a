package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/world/graph"
)

// exampleProjects are upstream's example projects of the 0.15 corpus
// and of its wiring set that hold a world model.
func exampleProjects(t *testing.T) []string {
	t.Helper()
	var dirs []string
	base := testenv.Corpus015(t, "examples")
	wiring := filepath.Join(filepath.Dir(filepath.Dir(base)), "openprose-0.15-wiring", "examples")
	for _, root := range []string{base, wiring} {
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	return dirs
}

// plausibleTruth is a truth a program could print for n: each field of
// its Maintains a text (a freshness horizon a time far ahead), each facet
// an object.
func plausibleTruth(n *graph.Node) string {
	truth := map[string]any{}
	for _, f := range n.Fields {
		truth[f] = "current " + f + " of " + n.ID
		if f == "valid_until" {
			truth[f] = "2999-01-01T00:00:00Z"
		}
	}
	for _, f := range n.Facets {
		truth[f] = map[string]any{"facet": f, "of": n.ID}
	}
	if len(truth) == 0 {
		truth["summary"] = "current truth of " + n.ID
	}
	b, _ := json.Marshal(truth)
	return string(b)
}

// plausibleEvent is an event for gateway n: {"id": "first"}, with every
// other key its ### Receives declares, of its declared type.
func plausibleEvent(n *graph.Node) string {
	event := map[string]any{"id": "first"}
	if sh := n.Events; sh != nil {
		for _, k := range sh.Keys {
			if k == "id" {
				continue
			}
			switch sh.Types[k] {
			case "number", "integer":
				event[k] = 1
			case "boolean":
				event[k] = true
			default:
				event[k] = k + " of the first event"
			}
		}
	}
	b, _ := json.Marshal(event)
	return string(b)
}

// Every upstream example project drains offline with every node bound to
// a program, Executions that are not ProseScript included, the inputs
// nothing in it maintains given as a caller gives them, and every node
// publishes a truth (a gateway on its first event).
func TestUpstreamExamplesDrainOffline(t *testing.T) {
	drained := 0
	for _, project := range exampleProjects(t) {
		g, _, err := loadWorld(project)
		if err != nil {
			t.Errorf("%s: %v", project, err)
			continue
		}
		if len(g.Nodes) == 0 {
			continue // a project of functions only
		}
		t.Run(filepath.Base(project), func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			args := []string{"run", project, "--state", state}
			for i, n := range g.Nodes {
				prog := filepath.Join(dir, "node"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".sh")
				script := "cat >/dev/null\ncat <<'EOF'\n" + plausibleTruth(n) + "\nEOF\n"
				if err := os.WriteFile(prog, []byte(script), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--slot", n.ID+"=exec:sh "+prog)
				if n.Kind == "gateway" {
					args = append(args, "--event", n.ID+"="+plausibleEvent(n))
				}
				for _, in := range n.CallerInputs { // inputs nothing in the project maintains: the caller's
					args = append(args, "--input", n.ID+"."+in+"=given by the caller")
				}
			}
			var out, errw bytes.Buffer
			if code := Main(args, strings.NewReader(""), &out, &errw); code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out.String(), errw.String())
			}
			for _, n := range g.Nodes {
				if _, err := os.Stat(filepath.Join(state, n.ID, "truth.json")); err != nil {
					t.Errorf("%s published nothing: %v\n%s", n.ID, err, out.String())
				}
			}
		})
		drained++
	}
	if drained < 6 {
		t.Errorf("%d example projects drained, want the 6 that hold a world model", drained)
	}
}

// upstreamIdioms is a project whose subscriber's Execution is written in
// upstream's idioms, not ProseScript.
var upstreamIdioms = map[string]string{
	"renewal-risk.prose.md": "---\nname: renewal-risk\nkind: responsibility\n---\n\n# Renewal risk\n\n### Maintains\n\n- `accounts`: each account's risk\n\n#### risk\n\nThe live risk.\n\n#### history\n\nThe decisions so far.\n",
	"vendor-watch.prose.md": "---\nname: vendor-watch\nkind: responsibility\n---\n\n# Vendor watch\n\n### Requires\n\n- `risk`: the `renewal-risk` risk facet\n\n### Maintains\n\n- `watch`: the accounts to watch\n\n### Execution\n\n```prose\n" +
		"let r = read_subscription(\"renewal-risk\", \"risk\")\nlet hot = filter r.accounts where level == \"high\"\nreturn call notify with { accounts: hot }\n```\n",
}

// An Execution that is not ProseScript never stops a project: the node
// bound to a program runs it; unbound, the model renders it with the
// Execution as instructions; with neither, the refusal names the node.
func TestExecutionNotProseScriptDrains(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	os.MkdirAll(project, 0o755)
	for name, text := range upstreamIdioms {
		if err := os.WriteFile(filepath.Join(project, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	risk := `exec:echo '{"accounts": {"a1": "high"}, "risk": {"a1": "high"}, "history": {}}'`
	drain := func(state string, extra ...string) (int, string, string) {
		var out, errw bytes.Buffer
		args := append([]string{"run", project, "--state", filepath.Join(dir, state), "--slot", "renewal-risk=" + risk}, extra...)
		code := Main(args, strings.NewReader(""), &out, &errw)
		return code, out.String(), errw.String()
	}
	code, out, errs := drain("bound", "--slot", `vendor-watch=exec:echo '{"watch": ["a1"]}'`)
	if code != 0 || !strings.Contains(out, "rendered vendor-watch (boot") {
		t.Errorf("bound to a program: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, "vendor-watch.prose.md:19:26: warning: the Execution of vendor-watch is not ProseScript") {
		t.Errorf("no warning at the Execution's line:\n%s", errs)
	}

	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("PROSE_MODEL", "")
	code, _, errs = drain("none")
	if code != 2 || !strings.Contains(errs, "no render bound for vendor-watch and no model configured") {
		t.Errorf("neither bound nor a model: exit %d\n%s", code, errs)
	}

	var out2, errw2 bytes.Buffer
	if code := Main([]string{"graph", project}, strings.NewReader(""), &out2, &errw2); code != 0 || !strings.Contains(out2.String(), "vendor-watch.risk <- renewal-risk.risk") {
		t.Errorf("prose graph: exit %d\n%s%s", code, out2.String(), errw2.String())
	}

	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"watch": ["a1"]}`})
	t.Setenv("OPENAI_API_KEY", "sk-test")
	code, out, errs = drain("model", "--model", "test-model", "--base-url", srv.URL)
	if code != 0 || !strings.Contains(out, "rendered vendor-watch (boot") {
		t.Fatalf("rendered by the model: exit %d\n%s%s", code, out, errs)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, `read_subscription(\"renewal-risk\", \"risk\")`) || !strings.Contains(body, "Follow this Execution as instructions") {
		t.Errorf("the model was not given the Execution:\n%s", body)
	}
}
