package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

const proposeFeed = "---\nname: price-feed\nkind: responsibility\n---\n\n# Price Feed\n\n### Maintains\n\n- `quotes`: the latest quote of each symbol\n- `as_of`: when\n"
const proposeDigest = "---\nname: digest\nkind: responsibility\n---\n\n# Digest\n\n### Requires\n\n- `prices`: what each symbol trades at now\n- `horizon`: how far back to look\n\n### Maintains\n\n- `brief`: one line\n"

// prose graph --propose asks the fake model about what no rule bound,
// writes the proposals that fit into prose.wiring.yaml with their
// reasons, drops the one that names no node, and shows the graph wired
// from the file; asked again, nothing is unresolved and no request is
// made.
func TestGraphPropose(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "price-feed.prose.md"), []byte(proposeFeed), 0o644)
	os.WriteFile(filepath.Join(dir, "digest.prose.md"), []byte(proposeDigest), 0o644)
	srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"proposals": []any{
		map[string]any{"subscriber": "digest", "input": "prices", "producer": "price-feed", "part": "quotes", "reason": "prices are the feed's quotes"},
		map[string]any{"subscriber": "digest", "input": "horizon", "producer": "calendar", "part": "@atomic", "reason": "a guess"},
	}}))
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("PROSE_MODEL", "")

	// Without --propose nothing asks a model: nothing maintains prices
	// (an error, unless a drain's caller gives it).
	code, out, errw := runMain(t, "graph", dir)
	if code != 1 || !strings.Contains(out, "caller inputs: prices, horizon") || !strings.Contains(errw, `input "prices" of digest: nothing in this project maintains it`) || srv.Count() != 0 {
		t.Fatalf("plain graph: %d %d\n%s%s", code, srv.Count(), out, errw)
	}
	if code, _, errw := runMain(t, "graph", dir, "--propose"); code != 2 || !strings.Contains(errw, "needs a model") {
		t.Fatalf("no model: exit %d\n%s", code, errw)
	}
	code, out, errw = runMain(t, "graph", dir, "--propose", "--model", "m1")
	if code != 1 || !strings.Contains(errw, `input "horizon" of digest: nothing in this project maintains it`) || strings.Contains(errw, `input "prices" of digest: nothing`) {
		t.Fatalf("exit %d\n%s%s", code, out, errw)
	}
	if srv.Count() != 1 {
		t.Fatalf("%d requests", srv.Count())
	}
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{`\"subscriber\": \"digest\"`, `\"input\": \"prices\"`, `what each symbol trades at now`, `\"quotes\"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s:\n%s", want, body)
		}
	}
	for _, want := range []string{"proposed 1 wirings into " + filepath.Join(dir, "prose.wiring.yaml"), "digest.prices: price-feed.quotes  (prices are the feed's quotes)", `rejected digest.horizon: calendar: no node is "calendar"`} {
		if !strings.Contains(errw, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw)
		}
	}
	if !strings.Contains(out, "digest.prices <- price-feed.quotes  (wiring") || !strings.Contains(out, "caller inputs: horizon") {
		t.Errorf("graph after:\n%s", out)
	}
	wiring, err := os.ReadFile(filepath.Join(dir, "prose.wiring.yaml"))
	if err != nil || !strings.Contains(string(wiring), "# prices are the feed's quotes\ndigest.prices: price-feed.quotes\n") || strings.Contains(string(wiring), "calendar") {
		t.Errorf("wiring file (%v):\n%s", err, wiring)
	}
	// Asked again: only horizon is unresolved; the model says it is a
	// caller input, and the file is not touched.
	srv.Push(llmtest.JSON(map[string]any{"proposals": []any{map[string]any{"subscriber": "digest", "input": "horizon", "producer": "", "part": "", "reason": "given by the caller"}}}))
	code, _, errw = runMain(t, "graph", dir, "--propose", "--model", "m1")
	again, _ := os.ReadFile(filepath.Join(dir, "prose.wiring.yaml"))
	if code != 1 || string(again) != string(wiring) || !strings.Contains(errw, "proposed 0 wirings") || strings.Contains(string(srv.Requests()[1].Body), `\"input\": \"prices\"`) {
		t.Errorf("second propose: exit %d, file changed %v\n%s", code, string(again) != string(wiring), errw)
	}
}
