package graph

import (
	"strings"
	"testing"
)

// ordersProject is a producer `orders` (titled Order Book) maintaining
// `total` and `count`, and a consumer `alert` with one Requires item.
func ordersProject(t *testing.T, requires string) string {
	return writeFiles(t, map[string]string{
		"orders.prose.md": "---\nname: orders\nkind: gateway\n---\n\n# Order Book\n\n### Maintains\n\n- `total` (number): the sum\n- `count` (integer): how many\n",
		"alert.prose.md":  node("alert", "responsibility", requires, "- `big`: n"),
	})
}

// A sentence that binds a producer but names what it is not must not
// read its whole truth in silence.
func TestSentenceSlips(t *testing.T) {
	for _, tc := range []struct {
		name, requires, want string
	}{
		{"a plain word near a field", "- `amount`: the totl of `orders`",
			`alert.prose.md:10:3: warning: input "amount" of alert reads the whole truth of orders, but it says "totl" (orders maintains "total"): write ` + "`orders.total`" + ` to read that part, or name the producer alone to read the whole truth [graph/unsatisfied]`},
		{"a plain plural of a field", "- `amount`: `orders`' totals",
			`alert.prose.md:10:3: warning: input "amount" of alert reads the whole truth of orders, but it says "totals" (orders maintains "total")`},
		{"a backticked near-miss of a field", "- `amount`: the `totl` of `orders`",
			`alert.prose.md:10:3: error: input "amount" of alert names "totl", which orders does not maintain; did you mean "total"? As written it reads the whole truth of orders: write ` + "`orders.total`" + ` to read that part, or wire it in prose.wiring.yaml (alert.amount: orders.total) [graph/unsatisfied]`},
		{"a backticked plural of a field", "- `amount`: `orders`'s `totals`",
			`error: input "amount" of alert names "totals", which orders does not maintain; did you mean "total"?`},
		{"an exclusion of a field of a producer read whole", "- `amount`: `orders`, except `count`",
			`alert.prose.md:10:3: error: input "amount" of alert excludes the field count of orders ("except ` + "`count`" + `"), but an exclusion removes a facet, not a field: as written it reads count all the same; name the fields it reads (` + "`orders.total`" + `) [graph/unsatisfied]`},
		{"an exclusion of the field read", "- `total`: from `orders`, never `total`",
			`alert.prose.md:10:3: error: input "total" of alert excludes the field total of orders ("never ` + "`total`" + `"), but an exclusion removes a facet`},
		{"an exclusion of a misspelt part", "- `amount`: `orders`, never its `totl`",
			`alert.prose.md:10:3: error: input "amount" of alert excludes "totl" ("never its ` + "`totl`" + `"), which orders does not maintain, so it excludes nothing: it reads the whole truth of orders; did you mean "total"? [graph/unsatisfied]`},
		{"an item's name the plural of a field", "- `totals`: from `orders`",
			`alert.prose.md:10:3: warning: input "totals" of alert reads the whole truth of orders, but it says "totals" (orders maintains "total"): write ` + "`orders.total`"},
		{"an item's name a near-miss of a field", "- `totall`: from `orders`",
			`alert.prose.md:10:3: warning: input "totall" of alert reads the whole truth of orders, but it says "totall" (orders maintains "total"): write ` + "`orders.total`"},
		{"an item's name a field written with a hyphen", "- `Tot-al`: from `orders`",
			`alert.prose.md:10:3: warning: input "Tot-al" of alert reads the whole truth of orders, but it says "Tot-al" (orders maintains "total"): write ` + "`orders.total`"},
		{"an item's plain name before a dash, a field of the producer", "- total — the sum from `orders`",
			`alert.prose.md:10:3: warning: input "orders" of alert reads the whole truth of orders, but it says "total" (orders maintains "total"): write ` + "`orders.total`"},
		{"a backticked near-miss of a field not tied to the producer", "- `amount`: `orders`, as `totl`",
			`alert.prose.md:10:3: warning: input "amount" of alert names "totl", which orders does not maintain; did you mean "total"?`},
		{"a backticked part the producer does not maintain", "- `amount`: the `tax` of `orders`",
			`alert.prose.md:10:3: error: input "amount" of alert names "tax" of orders, which it does not maintain (its parts: total, count)`},
		{"a producer misspelt in a fan-in", "- `amount`: totals from `orders` and `ordres`",
			`alert.prose.md:10:3: error: input "amount" of alert names "ordres", which is no node; did you mean orders? As written it reads orders alone [graph/unsatisfied]`},
		{"a producer's title misspelt", "- `amount`: from `orders` and `Ordr Book`",
			`error: input "amount" of alert names "Ordr Book", which is no node; did you mean Order Book?`},
		{"a dotted part misspelt", "- `amount`: `orders.totl`, counted with `orders`",
			"error: input \"amount\" of alert names \"orders.totl\", but orders maintains no part \"totl\"; did you mean `orders.total`?"},
		{"a scalar input reading a whole truth", "- `amount` (number): from `orders`",
			`alert.prose.md:10:3: error: input "amount" of alert is declared number, but it reads the whole truth of orders, which is an object: name the one part it reads (` + "`orders.PART`" + `) or declare it object [graph/type-mismatch]`},
		{"a scalar input fed by a fan-in", "- `amount` (number): the `total` and `count` of `orders`",
			`alert.prose.md:10:3: error: input "amount" of alert is declared number, but it reads orders.total, orders.count, an object keyed by producer or part`},
		{"a field tied to its producer, of another type", "- `amount` (string): the `total` of `orders`",
			`alert.prose.md:10:3: error: input "amount" of alert is declared string, but orders maintains total as number`},
		{"a backticked field not tied to its producer", "- `amount`: `orders`, with its `total`",
			`alert.prose.md:10:3: warning: input "amount" of alert reads the whole truth of orders, but it says "total" (orders maintains "total"): write ` + "`orders.total`" + ` to read that part, or name the producer alone to read the whole truth [graph/unsatisfied]`},
		{"a producer misspelt while the name rule binds the item", "- `total`: as counted by `ordres`",
			`alert.prose.md:10:3: error: input "total" of alert names "ordres", which is no node; did you mean orders? As written it reads orders alone`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, err := Load(ordersProject(t, tc.requires))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(diags.Error(), tc.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", diags.Error(), tc.want)
			}
		})
	}
}

// A backticked field tied to its producer ("the `total` of `orders`",
// "`orders`'s `count`") reads that field, not the whole truth; the
// producer alone, or its truth named plainly, still reads the whole.
func TestSentenceTiedField(t *testing.T) {
	for _, tc := range []struct{ requires, want string }{
		{"- `amount`: `orders`'s `truth.json`, the `@atomic` of `orders`", "amount <- orders.@atomic"},
		{"- `amount`: the `total` of `orders`", "amount <- orders.total"},
		{"- `amount`: `orders`'s `count`", "amount <- orders.count"},
		{"- `amount`: the `total` and `count` of `orders`", "amount <- orders.count; amount <- orders.total"},
		{"- `amount`: the whole truth of `orders`", "amount <- orders.@atomic"},
		{"- `amount`: the whole truth of `orders`, with its `total`", "amount <- orders.@atomic"},
		{"- `amount`: `orders` on its atomic facet; it reads the `count` by reference", "amount <- orders.@atomic"},
		{"- `amount` (object): everything `orders` knows", "amount <- orders.@atomic"},
	} {
		g, diags, err := Load(ordersProject(t, tc.requires))
		if err != nil || len(diags) > 0 {
			t.Fatal(tc.requires, err, diags)
		}
		var got []string
		for _, e := range g.In("alert") {
			got = append(got, e.Input+" <- "+e.Producer+"."+e.Facet)
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s: edges %q, want %q", tc.requires, got, tc.want)
		}
		for _, e := range g.In("alert") {
			if e.Facet != Atomic && !strings.Contains(e.Why, "field named in") {
				t.Errorf("%s: edge %s.%s says %q, not the words that named the field", tc.requires, e.Producer, e.Facet, e.Why)
			}
		}
	}
}

// A producer named by its front matter name, misspelt beside another
// producer, is no silent drop from the fan-in.
func TestSentenceSlipsByName(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"orders.prose.md": "---\nname: orders\nkind: gateway\n---\n\n# Orders\n\n### Maintains\n\n- `total` (number): the sum\n",
		"book.prose.md":   "---\nid: ledger-1\nname: order-book\nkind: gateway\n---\n\n# Book\n\n### Maintains\n\n- `lines`: n\n",
		"alert.prose.md":  node("alert", "responsibility", "- `both`: from `orders` and `order-bok`", "- `big`: n"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `alert.prose.md:10:3: error: input "both" of alert names "order-bok", which is no node; did you mean order-book? As written it reads orders alone`
	if !strings.Contains(diags.Error(), want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", diags.Error(), want)
	}
}

// An item that names its producer in bold, misspelt, is unsatisfied with
// the node it may mean, as a backticked one is.
func TestUnsatisfiedBoldName(t *testing.T) {
	_, diags, err := Load(ordersProject(t, "- `money`: the sum maintained by **ordrs**"))
	if err != nil {
		t.Fatal(err)
	}
	want := `alert.prose.md:10:3: error: input "money" of alert: nothing maintains "ordrs"; did you mean orders? [graph/unsatisfied]`
	if !strings.Contains(diags.Error(), want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", diags.Error(), want)
	}
}

// A field its producer declares optional, read by an input declared of
// a type without null and not optional, is a type mismatch; declared
// optional, it is not.
func TestOptionalFieldIntoARequiredInput(t *testing.T) {
	for _, tc := range []struct{ requires, want string }{
		{"- `price` (number): the `price` of `feed`", `alert.prose.md:10:3: error: input "price" of alert is declared number, but feed maintains price as optional (`},
		{"- `price` (number, optional): the `price` of `feed`", ""},
		{"- `price` (number | null): the `price` of `feed`", ""},
	} {
		dir := writeFiles(t, map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `price` (number, optional): the latest price"),
			"alert.prose.md": node("alert", "responsibility", tc.requires, "- `high`: n"),
		})
		_, diags, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeTypeMismatch) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: diagnostics:\n%s\nwant:\n%s", tc.requires, got, tc.want)
		}
	}
}

// A producer misspelt after a first name that is no plain name (a
// family's `eligible:<login>`) is reported as anywhere else: the spec
// names the item's input by that misspelt name, which is no reason to
// take it for another input the sentence speaks of.
func TestMisspeltProducerAfterAFamily(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"reg.prose.md": "---\nname: stargazer-registry\nkind: gateway\n---\n\n# Registry\n\n### Maintains\n\n- `users`: all users\n\n#### eligible:<login>\n\nWhether the user is eligible.\n",
		"map.prose.md": node("mapper", "responsibility", "- This user's `eligible:<login>` facet on the `stargazer-registy`, and only that facet.", "- `x`: y"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `map.prose.md:10:3: error: input "eligible:<login>" of mapper names "stargazer-registy", which is no node; did you mean stargazer-registry?`
	if !strings.Contains(diags.Error(), want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", diags.Error(), want)
	}
}

// A ### Maintains bullet written as a field without backticks declares
// none, so nothing would check it: a warning at its name. The bullets
// that are no field (postcondition, a capitalised note, a backticked
// field, prose in a fenced block) are not reported.
func TestPlainMaintainsField(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sum.prose.md": node("sum", "gateway", "", "- total (integer): the sum\n- **share**: a part\n- `count`: n\n- postcondition: `count` is at least 0\n- Note: this is prose\n\n```\n- example: not a field\n```"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(diags.String(), dir+"/", "")
	want := "sum.prose.md:10:3: warning: ### Maintains of sum writes \"total\" as a field without backticks, so it declares no field: nothing checks that a truth gives it, nor its type; write it in backticks (- `total` ...) [graph/plain-field]\n" +
		"sum.prose.md:11:5: warning: ### Maintains of sum writes \"share\" as a field without backticks, so it declares no field: nothing checks that a truth gives it, nor its type; write it in backticks (- `share` ...) [graph/plain-field]"
	if strings.TrimSpace(got) != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}

// A misspelt producer is suggested by the id to write, not by a title
// that only capitalises it (`Totals` for totals).
func TestMisspeltProducerSuggestsItsID(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"totals.prose.md": strings.Replace(node("totals", "gateway", "", "- `band`: n"), "# totals", "# Totals", 1),
		"report.prose.md": node("report", "responsibility", "- `band`: from `totls`", "- `line`: n"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `input "band" of report names "totls", which is no node; did you mean totals?`
	if !strings.Contains(diags.Error(), want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", diags.Error(), want)
	}
}

// A Maintains item whose parenthetical is no type prose reads declares
// no field (the loader passes it over): an error at the parenthetical.
// Types it reads are not reported.
func TestMaintainsFieldTypeUnread(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sum.prose.md": node("sum", "gateway", "", "- `band` (string, one of low/mid/high): the band\n- `total` (integer, optional): the sum\n- `count` (string | null): n"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(diags.String(), dir+"/", "")
	want := "sum.prose.md:10:10: error: ### Maintains of sum declares no field \"band\": (string, one of low/mid/high) is no type prose reads, so the item is passed over and nothing checks the field; write the type alone, (string), (integer, optional) or (string, default: x), and the rest after the colon [graph/field-type]"
	if strings.TrimSpace(got) != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}

// A set of words written without quotes, "(low | mid | high)", is told
// the quoted form that declares it.
func TestMaintainsBareWordSet(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sum.prose.md": node("sum", "gateway", "", "- `band` (low | mid | high): the band\n- `count` (integer | null): n"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(diags.String(), dir+"/", "")
	want := `sum.prose.md:10:10: error: ### Maintains of sum declares no field "band": (low | mid | high) is no type prose reads, so the item is passed over and nothing checks the field; a set of words is written quoted, ("low" | "mid" | "high") [graph/field-type]`
	if strings.TrimSpace(got) != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}

// A field called immaterial in its parentheses is told where the word
// is read, not only to write a type.
func TestMaintainsFieldImmaterialInParens(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md": node("feed", "gateway", "", "- `events`: the events\n- `fetched_at` (immaterial): the poll stamp"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "declares no field \"fetched_at\": (immaterial) is no type prose reads, so the item is passed over and nothing checks the field; to keep it out of the fingerprint, say so after the colon (- `fetched_at`: ... (immaterial))"
	if !strings.Contains(diags.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", diags.String(), want)
	}
}

// A typed item under a `####` facet of ### Maintains describes the facet
// and declares no field (the loader reads it so): an error that says so
// and where to write the field, not that its type is unread.
func TestMaintainsFieldUnderAFacet(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"risk.prose.md": node("risk", "gateway", "", "- `level` (string): the level\n\n#### scores\n\n- `score` (number): the score\n- `notes`: free text\n"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(diags.String(), dir+"/", "")
	want := "risk.prose.md:14:4: error: ### Maintains of risk declares no field \"score\": it is written under the facet #### scores, where a list describes the facet, so nothing checks that a truth gives it, nor its type; to have it checked, declare it as a field of the truth, above the first #### [graph/field-type]"
	if strings.TrimSpace(got) != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}
