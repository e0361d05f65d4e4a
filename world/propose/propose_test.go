package propose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/world/graph"
)

const (
	feed   = "---\nname: price-feed\nkind: responsibility\n---\n\n# Price Feed\n\n### Maintains\n\n- `quotes`: the latest quote of each symbol\n- `as_of`: when\n"
	digest = "---\nname: digest\nkind: responsibility\n---\n\n# Digest\n\n### Requires\n\n- `prices`: what each symbol trades at now\n- `horizon`: how far back to look\n- `window`: the window\n\n### Maintains\n\n- `brief`: one line\n"
)

func project(t *testing.T) (string, *graph.Graph) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"price-feed.prose.md": feed, "digest.prose.md": digest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, g
}

// Ask keeps the proposals that fit the graph and says why each other one
// does not: an unknown producer, the subscriber itself, a part the
// producer lacks, an item that is not unresolved, a second answer for an
// item; a producer of "" is a caller input, neither kept nor rejected.
func TestAskChecksEveryAnswer(t *testing.T) {
	_, g := project(t)
	p := func(in, prod, part string) map[string]any {
		return map[string]any{"subscriber": "digest", "input": in, "producer": prod, "part": part, "reason": "r"}
	}
	srv := llmtest.NewServer(t, llmtest.JSON(map[string]any{"proposals": []any{
		p("prices", "price-feed", "quotes"),
		p("prices", "price-feed", "as_of"), // a second answer for prices
		p("horizon", "calendar", "@atomic"),
		p("horizon", "digest", "brief"),
		p("window", "price-feed", "volume"),
		p("brief", "price-feed", "quotes"),
		p("window", "", ""),
	}}))
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "m", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Ask(context.Background(), g, c, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.OK) != 1 || res.OK[0].Key() != "digest.prices" || res.OK[0].Value() != "price-feed.quotes" {
		t.Errorf("kept %+v, want digest.prices: price-feed.quotes", res.OK)
	}
	var whys []string
	for _, r := range res.Rejected {
		whys = append(whys, r.Key()+": "+r.Why)
	}
	want := []string{
		"digest.prices: digest.prices is not an unresolved item",
		`digest.horizon: no node is "calendar"`,
		"digest.horizon: a node does not subscribe to itself",
		`digest.window: price-feed has no part "volume" (facets: ; fields: quotes, as_of)`,
		"digest.brief: digest.brief is not an unresolved item",
	}
	if strings.Join(whys, "\n") != strings.Join(want, "\n") {
		t.Errorf("rejected:\n%s\nwant:\n%s", strings.Join(whys, "\n"), strings.Join(want, "\n"))
	}
	if res.Requests != 1 || srv.Count() != 1 {
		t.Errorf("%d requests (%d served), want 1", res.Requests, srv.Count())
	}
}

// Nothing unresolved: no request.
func TestAskNothingUnresolved(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "price-feed.prose.md"), []byte(feed), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "m", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Ask(context.Background(), g, c, "m"); err != nil || res.Requests != 0 || srv.Count() != 0 {
		t.Errorf("Ask: %+v %v, %d requests", res, err, srv.Count())
	}
}

// Append writes each new proposal under its reason, keeps a key the file
// has (returned as kept) and leaves the rest of the file as it was; the
// graph wired again from the file binds the item by it.
func TestAppend(t *testing.T) {
	dir, _ := project(t)
	old := "# mine\ndigest.horizon: price-feed.as_of"
	if err := os.WriteFile(filepath.Join(dir, graph.WiringFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	ps := []Proposal{
		{Subscriber: "digest", Input: "prices", Producer: "price-feed", Part: "quotes", Reason: "the feed's\n quotes"},
		{Subscriber: "digest", Input: "horizon", Producer: "price-feed", Part: graph.Atomic, Reason: "a guess"},
	}
	path, kept, err := Append(dir, ps, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Input != "horizon" {
		t.Errorf("kept %+v, want horizon", kept)
	}
	b, _ := os.ReadFile(path)
	want := old + "\n\n# Proposed by prose graph --propose (model m1): review each line, then commit.\n# the feed's quotes\ndigest.prices: price-feed.quotes\n"
	if string(b) != want {
		t.Errorf("wiring file:\n%s\nwant:\n%s", b, want)
	}
	if _, kept, err := Append(dir, ps[:1], "m1"); err != nil || len(kept) != 1 {
		t.Errorf("again: kept %v, %v", kept, err)
	}
	if again, _ := os.ReadFile(path); string(again) != want {
		t.Errorf("a second Append of the same key changed the file:\n%s", again)
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	wired := false
	for _, e := range g.Edges {
		if e.Subscriber == "digest" && e.Input == "prices" && e.Producer == "price-feed" && e.Facet == "quotes" {
			wired = true
		}
	}
	if !wired {
		t.Errorf("digest.prices is not wired from the file: %+v", g.Edges)
	}
}
