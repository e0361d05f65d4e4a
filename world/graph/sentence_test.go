package graph

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// sentenceProject is a project whose items each say more than their
// first name: a fan-in, named facets in the four ways a sentence names
// one, a negation and a facet family.
func sentenceProject(t *testing.T) string {
	return writeFiles(t, map[string]string{
		"scout-price.prose.md":    node("scout-price", "gateway", "", "#### ledger\n\nPrices.\n\n#### notes\n\nScratch."),
		"scout-friction.prose.md": node("scout-friction", "gateway", "", "- `ledger`: frictions"),
		"scout-desire.prose.md":   node("scout-desire", "gateway", "", "- `ledger`: desires"),
		"renewal-risk.prose.md":   node("renewal-risk", "gateway", "", "#### risk\n\nThe score.\n\n#### history\n\nThe past."),
		"viewport.prose.md":       node("viewport-policy", "gateway", "", "#### view:adversary\n\nOne view.\n\n#### view:friend\n\nAnother."),
		"inbox.prose.md":          node("signal-inbox", "gateway", "", "Keyed by account.\n\n#### acct:<id>\n\nOne account's signals."),
		"scorer.prose.md":         node("scorer", "gateway", "", "#### track\n\nThe lane.\n\n#### score\n\nThe number."),
		"reader.prose.md": node("reader", "responsibility",
			"- `ledgers`: all scout ledgers from `scout-price`, `scout-friction`, `scout-desire`.\n"+
				"- The `viewport-policy`'s `view:adversary` facet only — never the atomic whole-truth.\n"+
				"- `risk`: subscribes to the `renewal-risk` responsibility's `risk` facet only — never to `history`.\n"+
				"- `accounts`: the `signal-inbox` gateway's per-account `acct:<id>` facets.\n"+
				"- `lane`: the `track` facet of `scorer`, not its `score`.\n"+
				"- `price`: `scout-price.ledger`, never `scout-friction`.",
			"- `summary`: n"),
	})
}

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

func TestSentenceWiring(t *testing.T) {
	dir := sentenceProject(t)
	g, diags, err := Load(dir)
	// "all scout ledgers from `scout-price`" reads its whole truth while
	// naming its part: a warning (wire.go, slips), not an error.
	if err != nil || diags.HasErrors() || len(diags) != 1 || !strings.Contains(diags[0].Error(), `reads the whole truth of scout-price, scout-friction, scout-desire, but it says "ledgers" (scout-price, scout-friction, scout-desire maintain "ledger"): write `+"`scout-price.ledger`, `scout-friction.ledger`, `scout-desire.ledger`") {
		t.Fatal(err, diags)
	}
	var got []string
	for _, e := range g.In("reader") {
		got = append(got, e.Input+" <- "+e.Producer+"."+e.Facet+" ("+e.Rule+", line "+itoa(e.Pos.Line)+")")
	}
	want := []string{
		"accounts <- signal-inbox.acct:<id> (reference, line 13)",
		"lane <- scorer.track (reference, line 14)",
		"ledgers <- scout-desire.@atomic (reference, line 10)",
		"ledgers <- scout-friction.@atomic (reference, line 10)",
		"ledgers <- scout-price.@atomic (reference, line 10)",
		"price <- scout-price.ledger (reference, line 15)",
		"risk <- renewal-risk.risk (reference, line 12)",
		"viewport-policy <- viewport-policy.view:adversary (explicit, line 11)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	out, err := g.Explain("reader")
	if err != nil {
		t.Fatal(err)
	}
	// --explain quotes, per item at its line, the words that decided
	// each edge and what the words of exclusion removed.
	golden := filepath.Join("testdata", "explain-reader.txt")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantExplain, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(wantExplain) {
		t.Errorf("explain:\n%s\nwant:\n%s", out, wantExplain)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
