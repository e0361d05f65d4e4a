package graph

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

func edgeList(g *Graph) []string {
	var out []string
	for _, e := range g.Edges {
		out = append(out, e.Producer+"."+e.Facet+" -> "+e.Subscriber+"."+e.Input)
	}
	sort.Strings(out)
	return out
}

// Every example folder of upstream's 0.15 tree wires as its README
// describes, without a diagnostic.
func TestExamplesWireAsTheirReadmesSay(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		entry   []string
		edges   []string
		callers map[string][]string
	}{
		// The DAG sketch: counts feeds the summary and the trend, raw_events
		// the auditor; summary -> alert -> projection; the diamond into the
		// snapshot. format-alert-copy is a function, no node (U07).
		{"basic-unit-suite", []string{"counter-events"}, []string{
			"alert-state.@atomic -> alert-projection.AlertState",
			"alert-state.@atomic -> executive-snapshot.AlertState",
			"count-summary.@atomic -> alert-state.CountSummary",
			"count-trend.@atomic -> executive-snapshot.CountTrend",
			"counter-events.counts -> count-summary.counts",
			"counter-events.counts -> count-trend.counts",
			"counter-events.raw_events -> raw-event-auditor.raw_events",
			"raw-event-auditor.@atomic -> executive-snapshot.RawEventAudit",
		}, nil},
		// "signals (gateway) -> digest, one atomic edge".
		{"surprise-cost", []string{"signals"}, []string{"signals.@atomic -> digest.signals"}, nil},
		// The gateway feeds the maintained risk responsibility; the
		// functions it calls are no nodes.
		{"customer-risk-radar", []string{"customer-risk-review"}, []string{
			"customer-risk-review.account-signals -> 067NC4KG0XVMH2AA9D64TKJFA0.account-signals",
		}, nil},
		// One node; its three feeds are maintained outside the folder.
		// It is input- and self-driven, so no entry point: Forme's
		// entry_points are the external-driven nodes alone.
		{"competitor-activity", []string{}, nil,
			map[string][]string{"067NC4KG01RG50R40M30E20918": {"funding-signals", "hiring-signals", "launch-signals"}}},
		// The gateway's email:<id> facets feed the classifier lanes, the
		// classifiers the threader (the fan-in), the threader's rollup the
		// digest; the per-thread renders are not in src/, so the digest
		// takes their summaries from its caller.
		{"inbox-triage", []string{"inbox-stream"}, []string{
			"classifier.classification -> threader.classifications",
			"inbox-stream.email:bad1 -> classifier.email",
			"inbox-stream.email:invoice1 -> classifier.email",
			"inbox-stream.email:nl1 -> classifier.email",
			"inbox-stream.email:nl2 -> classifier.email",
			"inbox-stream.email:ship1 -> classifier.email",
			"threader.rollup -> digest.ranking",
		}, map[string][]string{"digest": {"thread-summaries"}}},
		// A function only: nothing to wire.
		{"declared-tools", []string{}, nil, nil},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			g, diags, err := Load(testenv.Corpus015(t, filepath.Join("examples", tc.dir)))
			if err != nil {
				t.Fatal(err)
			}
			// An input nothing in the folder maintains is an error that
			// names it; nothing else is reported.
			var unmaintained []string
			for _, d := range diags {
				if d.Code != CodeUnmaintained {
					t.Errorf("diagnostic: %s", d)
				}
			}
			for _, u := range g.Unresolved {
				if u.Why == CodeUnmaintained {
					unmaintained = append(unmaintained, u.Node+"."+u.Item.Name)
				}
			}
			var want []string
			for id, ins := range tc.callers {
				for _, in := range ins {
					want = append(want, id+"."+in)
				}
			}
			if len(diags) != len(want) || !reflect.DeepEqual(unmaintained, want) {
				t.Errorf("unmaintained inputs %q (%d errors), want %q", unmaintained, len(diags), want)
			}
			if got := edgeList(g); !reflect.DeepEqual(got, tc.edges) {
				t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.edges, "\n"))
			}
			if got := g.EntryPoints(); !reflect.DeepEqual(got, tc.entry) {
				t.Errorf("entry points %q, want %q", got, tc.entry)
			}
			for _, n := range g.Nodes {
				if want := tc.callers[n.ID]; !reflect.DeepEqual(n.CallerInputs, want) {
					t.Errorf("%s: caller inputs %q, want %q", n.ID, n.CallerInputs, want)
				}
				if n.Kind == "function" {
					t.Errorf("function %s is a node", n.ID)
				}
			}
			// What a gateway's ### Emits names, the graph wires from it.
			for _, n := range g.Nodes {
				for _, sec := range n.Spec.Sections {
					if !strings.EqualFold(sec.Heading, "emits") {
						continue
					}
					for _, line := range strings.Split(sec.Body, "\n") {
						if name, ok := strings.CutPrefix(line, "- "); ok {
							if sub := g.ref(strings.TrimSpace(name)); sub == nil || !contains(g.Subscribers(n.ID), sub.ID) {
								t.Errorf("%s emits to %s, which it does not feed", n.ID, name)
							}
						}
					}
				}
			}
		})
	}
}

// Topological order: by height, then id.
func TestOrderByHeightThenID(t *testing.T) {
	g, _, err := Load(testenv.Corpus015(t, "examples/basic-unit-suite"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.ID)
	}
	want := []string{"counter-events", "count-summary", "count-trend", "raw-event-auditor", "alert-state", "alert-projection", "executive-snapshot"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func node(name, kind, requires, maintains string) string {
	s := "---\nname: " + name + "\nkind: " + kind + "\n---\n\n# " + name + "\n\n"
	if requires != "" {
		s += "### Requires\n\n" + requires + "\n\n"
	}
	return s + "### Maintains\n\n" + maintains + "\n"
}

func TestWiringErrorsAtTheItem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // FILE:LINE:COL: ... fragment
	}{
		{"unsatisfied, with did-you-mean", map[string]string{
			"feed.prose.md": node("feed", "gateway", "", "- `counts`: tallies"),
			"sum.prose.md":  node("sum", "responsibility", "- `feed.counts`: in\n- `countz`: the tallies", "- `total`: n"),
		}, "sum.prose.md:11:3: error: input \"countz\" of sum: nothing maintains \"countz\"; did you mean counts? [graph/unsatisfied]"},
		{"unsatisfied, a producer that does not exist", map[string]string{
			"sum.prose.md": node("sum", "responsibility", "- `totals`: *(Maintained by `nobody`.)*", "- `total`: n"),
			"b.prose.md":   node("b", "gateway", "", "- `y`: n"),
		}, "sum.prose.md:10:3: error: input \"totals\" of sum: no node \"nobody\" maintains it (nodes: b) [graph/unsatisfied]"},
		{"a producer misspelt, though the name rule binds the item", map[string]string{
			"sum.prose.md":   node("order-summary", "responsibility", "", "- `total`: n"),
			"alert.prose.md": node("alert", "responsibility", "- `total`: the total *(Maintained by `order-sumary`.)*", "- `big`: n"),
		}, "alert.prose.md:10:3: error: input \"total\" of alert says it is maintained by \"order-sumary\", which names no node; did you mean order-summary? (nodes: order-summary) [graph/unsatisfied]"},
		{"an input declared of another type than its producer's field", map[string]string{
			"sum.prose.md":   node("sum", "gateway", "", "- `total` (string): formatted\n- `ids` (integer[]): n"),
			"alert.prose.md": node("alert", "responsibility", "- `total` (number): the total of `sum`\n- `ids` (number[]): from `sum`", "- `big`: n"),
		}, "alert.prose.md:10:3: error: input \"total\" of alert is declared number, but sum maintains total as string (sum.prose.md:10:4): declare the same type on both sides [graph/type-mismatch]"},
		{"a wake source misspelt in ### Continuity", map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `n`: n"),
			"trend.prose.md": node("trend", "responsibility", "- `n`: from `feed`", "- `t`: n") + "\n### Continuity\n\n- input-driven\n- self-drivn: every hour\n",
		}, "trend.prose.md:19:3: error: ### Continuity names \"self-drivn\", which is no wake source; did you mean self-driven? (input-driven, self-driven or external-driven) [graph/continuity]"},
		{"### Emits naming no node", map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `n`: n") + "\n### Emits\n\n- trendd\n\nProse with `n` names nothing.\n",
			"trend.prose.md": node("trend", "responsibility", "- `n`: from `feed`", "- `t`: n"),
		}, "feed.prose.md:14:3: warning: ### Emits names \"trendd\", which is no node of this project; did you mean trend? [graph/emits]"},
		{"### Emits naming a node that does not read the gateway", map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `n`: n") + "\n### Emits\n\n- `other` on each batch\n- trend\n",
			"trend.prose.md": node("trend", "responsibility", "- `n`: from `feed`", "- `t`: n"),
			"other.prose.md": node("other", "responsibility", "", "- `m`: n"),
		}, "feed.prose.md:14:4: warning: ### Emits names other, but other's ### Requires does not read feed, so feed's events do not wake it: add an item naming `feed` there [graph/emits]\n" +
			"other.prose.md:2:7: warning: other is input-driven but reads no other node: it renders once and never wakes again; give it a ### Requires, or a ### Continuity it wakes by (self-driven: every N hours) [graph/idle]"},
		{"a wiring file edge whose producer part does not exist", map[string]string{
			"sum.prose.md":      node("sum", "gateway", "", "- `total`: n"),
			"alert.prose.md":    node("alert", "responsibility", "- `money`: the amount", "- `big`: n") + "\n### Continuity\n\n- input-driven\n",
			"prose.wiring.yaml": "# wiring\nalert.money: sum.totl\n",
		}, "alert.prose.md:10:3: error: input \"money\" of alert: nothing in this project maintains it; add the responsibility or gateway that does, wire it in prose.wiring.yaml (alert.money: producer.facet), or give it on each drain with `prose run DIR --input alert.money=VALUE` [graph/unmaintained]\n" +
			"prose.wiring.yaml:2:1: error: alert.money: \"sum.totl\" names no node (or no part of it) that alert.money could read: write producer or producer.part, by id or name; did you mean sum.total? [graph/wiring]"},
		{"a wiring file edge naming no input", map[string]string{
			"sum.prose.md":      node("sum", "gateway", "", "- `total`: n"),
			"alert.prose.md":    node("alert", "responsibility", "- `money`: *(Maintained by `sum.total`.)*", "- `big`: n"),
			"prose.wiring.yaml": "alert.mony: sum.total\n",
		}, "prose.wiring.yaml:1:1: error: \"alert.mony\" names no input of a node (subscriber.input, by id or name); did you mean alert.money? [graph/wiring]"},
		{"a wiring file immaterial entry naming no node", map[string]string{
			"sum.prose.md":      node("order-summary", "gateway", "", "- `total`: n"),
			"prose.wiring.yaml": "immaterial:\n  order-sumary: [stamp]\n",
		}, "prose.wiring.yaml:2:3: error: immaterial: \"order-sumary\" names no node; did you mean order-summary? [graph/wiring]"},
		{"a wiring file input wired twice", map[string]string{
			"sum.prose.md":      node("sum", "gateway", "", "- `total`: n\n- `net`: n"),
			"alert.prose.md":    node("alert", "responsibility", "- `money`: the amount", "- `big`: n"),
			"prose.wiring.yaml": "alert.money: sum.total\nalert.money: sum.net\n",
		}, "prose.wiring.yaml:2:1: error: alert.money is wired twice (line 1: sum.total; here: sum.net): an input reads what one line names; keep one [graph/wiring]"},
		{"a wiring file input wired by id and by name", map[string]string{
			"sum.prose.md":      node("sum", "gateway", "", "- `total`: n\n- `net`: n"),
			"alert.prose.md":    strings.Replace(node("alert", "responsibility", "- `money`: the amount", "- `big`: n"), "kind:", "id: 067NC4KG01RG50R40M30E20918\nkind:", 1),
			"prose.wiring.yaml": "alert.money: sum.total\n067NC4KG01RG50R40M30E20918.money: sum.net\n",
		}, "prose.wiring.yaml:1:1: error: alert.money and 067NC4KG01RG50R40M30E20918.money (line 2) wire one input, 067NC4KG01RG50R40M30E20918 (alert).money (the one by id, the other by name): keep one [graph/wiring]"},
		{"a wiring file immaterial: written twice", map[string]string{
			"sum.prose.md":      node("sum", "gateway", "", "- `total`: n\n- `stamp`: when\n- `seen`: when"),
			"prose.wiring.yaml": "immaterial:\n  sum: [stamp]\nimmaterial:\n  sum: [seen]\n",
		}, "prose.wiring.yaml:3:1: error: immaterial: appears twice (line 1, and here): YAML keeps the last, so the fields of the first would stay material; write them under one immaterial: [graph/wiring]\n" +
			"prose.wiring.yaml:4:3: error: immaterial: sum appears twice (line 2, and here): list its fields once [graph/wiring]"},
		{"an input-driven node whose inputs are under another heading", map[string]string{
			"feed.prose.md":   node("feed", "gateway", "", "- `n`: n"),
			"report.prose.md": strings.Replace(node("report", "responsibility", "- `n`: from `feed`", "- `line`: n"), "### Requires", "### Inputs", 1),
		}, "feed.prose.md:2:7: warning: no node reads gateway feed: its events wake no one; name it in the ### Requires item meant to read it (- `NAME`: ... from `feed`) [graph/unread]\n" +
			"report.prose.md:8:1: warning: report is input-driven but reads no other node (its section \"Inputs\" is not read as ### Requires: name it so): it renders once and never wakes again; give it a ### Requires, or a ### Continuity it wakes by (self-driven: every N hours) [graph/idle]"},
		{"a node whose truth is under another heading", map[string]string{
			"feed.prose.md": strings.Replace(node("feed", "gateway", "", "- `n`: n"), "### Maintains", "### Outputs", 1),
		}, "feed.prose.md:8:1: warning: feed has no ### Maintains (its section \"Outputs\" is not read as ### Maintains: name it so): nothing declares its truth, so whatever a render answers is published unchecked; declare its fields under ### Maintains (- `NAME` (TYPE): ...) [graph/no-maintains]"},
		{"a section heading one level up after the others", map[string]string{
			"feed.prose.md": node("feed", "gateway", "", "- `n`: n"),
			"sum.prose.md":  strings.Replace(node("sum", "responsibility", "- `n`: from `feed`", "- `total`: n"), "### Maintains", "## Maintains", 1) + "\n### Continuity\n\ninput-driven\n",
		}, "sum.prose.md:12:1: error: `## Maintains` opens an inline node named Maintains, and leaves sum without its Maintains section: write it ### Maintains, at the level of the file's other sections [graph/section-node]\n" +
			"sum.prose.md:12:1: warning: sum has no ### Maintains (its `## Maintains` opens an inline node: write it ### Maintains): nothing declares its truth, so whatever a render answers is published unchecked; declare its fields under ### Maintains (- `NAME` (TYPE): ...) [graph/no-maintains]"},
		{"a producer named as a plain word", map[string]string{
			"feed.prose.md": node("feed", "gateway", "", "- `n`: n"),
			"sum.prose.md":  node("sum", "responsibility", "- `count`: the count from feed.", "- `total`: n"),
		}, "sum.prose.md:10:3: error: input \"count\" of sum: nothing in this project maintains it (it names feed as a plain word, which wiring does not read: write `feed`, in backticks, to read that node); add the responsibility or gateway that does, wire it in prose.wiring.yaml (sum.count: producer.facet), or give it on each drain with `prose run DIR --input sum.count=VALUE` [graph/unmaintained]"},
		{"a producer named in italics", map[string]string{
			"feed.prose.md": node("feed", "gateway", "", "- `n`: n"),
			"sum.prose.md":  node("sum", "responsibility", "- `count`: the count from *feed*.", "- `total`: n"),
		}, "sum.prose.md:10:3: error: input \"count\" of sum: nothing in this project maintains it (it names feed as a plain word, which wiring does not read: write `feed`, in backticks, to read that node); add the responsibility or gateway that does, wire it in prose.wiring.yaml (sum.count: producer.facet), or give it on each drain with `prose run DIR --input sum.count=VALUE` [graph/unmaintained]"},
		{"two files of one name", map[string]string{
			"a/sum.prose.md": node("sum", "gateway", "", "- `total`: n"),
			"b/sum.prose.md": strings.Replace(node("sum", "gateway", "", "- `total`: n"), "kind:", "id: 067NC4KG01RG50R40M30E20918\nkind:", 1),
		}, "b/sum.prose.md:2:7: error: node name \"sum\" is also a/sum.prose.md's (id sum): a reference or a --slot by that name would reach only one of them; rename one [graph/duplicate-name]"},
		{"a node's kind misspelt", map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `n`: n"),
			"trend.prose.md": node("trend", "responsibilty", "- `n`: from `feed`", "- `t`: n"),
		}, "trend.prose.md:3:7: error: unknown kind \"responsibilty\": did you mean kind: responsibility? [spec/unknown-kind]"},
		{"a read of a node misspelt by its name, which is not its id", map[string]string{
			"health.prose.md": strings.Replace(node("account-health", "responsibility", "", "- `n`: n"), "kind:", "id: 067NC4KG01RG50R40M30E20918\nkind:", 1),
			"count.prose.md":  node("count", "responsibility", "", "- `c`: n") + "\n### Execution\n\n```prose\nlet h = read_world_model(\"account-helth\")\nreturn { c: h.n }\n```\n",
		}, `count.prose.md:15:26: error: read_world_model("account-helth") of count: no node is "account-helth"; did you mean "account-health"? [graph/unsatisfied]`},
		{"a function named as a producer", map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `n`: n"),
			"score.prose.md": "---\nname: score-account\nkind: function\n---\n\n# Score\n\n### Parameters\n\n- `n`: n\n\n### Returns\n\n- `score`: s\n",
			"sum.prose.md":   node("sum", "responsibility", "- `n`: from `feed`\n- `s`: the `score` of `score-account`", "- `t`: n"),
		}, "sum.prose.md:11:3: error: input \"s\" of sum names score-account, a function: a function keeps no truth to subscribe to, it is called; call it from sum's ### Execution (let x = call score-account ...), or read the node whose truth holds its result [graph/unsatisfied]"},
		{"a node without a kind", map[string]string{
			"feed.prose.md":  node("feed", "gateway", "", "- `n`: n"),
			"trend.prose.md": strings.Replace(node("trend", "responsibility", "- `n`: from `feed`", "- `t`: n"), "kind: responsibility\n", "", 1),
		}, "trend.prose.md:1:1: error: front matter has no kind: key, and the file is read as a pattern; its ### Requires and ### Maintains are a responsibility's: add kind: responsibility [spec/front-matter-key]"},
		{"ambiguous, naming the candidates", map[string]string{
			"a.prose.md":   node("a", "gateway", "", "#### counts\n\nTallies."),
			"b.prose.md":   node("b", "gateway", "", "- `counts`: tallies"),
			"sum.prose.md": node("sum", "responsibility", "- `counts`: the tallies", "- `total`: n"),
		}, "sum.prose.md:10:3: error: input \"counts\" of sum is ambiguous: a.counts, b.counts could each give it; write `producer.part` or add it to prose.wiring.yaml [graph/ambiguous]"},
		{"a facet no named producer has, with did-you-mean", map[string]string{
			"s.prose.md":   node("scorer", "gateway", "", "#### track\n\nThe lane."),
			"sum.prose.md": node("sum", "responsibility", "- `lane`: the `scorer`'s `trakc` facet only.", "- `total`: n"),
		}, "sum.prose.md:10:3: error: input \"lane\" of sum names the facet \"trakc\", which scorer does not maintain; did you mean \"track\"? [graph/unsatisfied]"},
		{"an exclusion that leaves nothing to read", map[string]string{
			"s.prose.md":   node("scorer", "gateway", "", "#### track\n\nThe lane.\n\n#### score\n\nThe number."),
			"sum.prose.md": node("sum", "responsibility", "- `lane`: the `scorer`, never its `score`.", "- `total`: n"),
		}, "sum.prose.md:10:3: error: input \"lane\" of sum excludes score of scorer but names no part of it to read: name the facets it reads (`scorer.FACET`) [graph/ambiguous]"},
		{"a part tied to one producer of a fan-in, the next read whole", map[string]string{
			"eu.prose.md":  node("price-eu", "gateway", "", "- `value` (number): the price"),
			"us.prose.md":  node("price-us", "gateway", "", "- `value` (number): the price"),
			"mid.prose.md": node("mid", "responsibility", "- `prices`: the `value` of `price-eu` and of `price-us`.", "- `mid` (number): the average"),
		}, "mid.prose.md:10:3: error: input \"prices\" of mid reads \"value\" of price-eu (\"the `value` of\") but the whole truth of price-us, which maintains \"value\" too: write `price-eu.value` and `price-us.value` to read the part of each, or name price-us apart (\", and `price-us`\") to read it whole [graph/ambiguous]"},
		{"two ids one letter case apart", map[string]string{
			"a.prose.md": node("Summary", "gateway", "", "- `x`: n"),
			"b.prose.md": node("summary", "gateway", "", "- `y`: n"),
		}, "b.prose.md:2:7: error: node id \"summary\" differs from a.prose.md's \"Summary\" only in letter case: their state directories would be one on a file system that folds case (macOS, Windows), and a reference in either case reads only one of them; give one of them another front matter id [graph/duplicate-id]"},
		{"ambiguous between two whole truths, naming the nodes", map[string]string{
			"a.prose.md": node("a", "gateway", "", "The `Ledger` world-model.\n\n- `v`: n"),
			"b.prose.md": node("b", "gateway", "", "The `Ledger` world-model.\n\n- `v`: n"),
			"c.prose.md": node("c", "responsibility", "- `Ledger`: the ledger.", "- `w`: n"),
		}, "c.prose.md:10:3: error: input \"Ledger\" of c is ambiguous: a, b could each give it; write `producer.part` or add it to prose.wiring.yaml [graph/ambiguous]"},
		{"cycle, naming the path", map[string]string{
			"a.prose.md": node("a", "responsibility", "- `fromc`: *(Maintained by `c`.)*", "- `x`: n"),
			"b.prose.md": node("b", "responsibility", "- `froma`: *(Maintained by `a`.)*", "- `y`: n"),
			"c.prose.md": node("c", "responsibility", "- `fromb`: *(Maintained by `b`.)*", "- `z`: n"),
		}, "b.prose.md:10:3: error: input \"froma\" of b closes a cycle: a → b → c → a (each node would wait on itself): break it by dropping one Requires item on it (this one, or the one of a that reads c); feedback from a node's own output is its prior truth (\"prior `b`\") with a self-driven ### Continuity, never an edge [graph/cycle]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, diags, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(diags.String(), dir+string(filepath.Separator), "")
			if strings.TrimSpace(got) != tc.want {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// The wiring file binds what no other rule does, and an explicit
// producer.facet wins over it; a root file keeps only what it reaches.
func TestWiringFileAndRootFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md":           node("feed", "gateway", "", "#### counts\n\nTallies.\n\n#### raw\n\nIds."),
		"sum.prose.md":            node("sum", "responsibility", "- `tallies`: the numbers\n- `feed.raw`: the ids", "- `total`: n"),
		"other.prose.md":          node("other", "responsibility", "- `t`: `sum`", "- `u`: n"),
		".hidden/x.prose.md":      node("sum", "responsibility", "", "- `v`: n"),
		"node_modules/y.prose.md": node("sum", "responsibility", "", "- `v`: n"),
		WiringFile:                "sum.tallies: feed.counts\nimmaterial:\n  feed: [seen]\n",
	})
	g, diags, err := Load(dir)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	want := []string{"feed.counts -> sum.tallies", "feed.raw -> sum.feed.raw", "sum.@atomic -> other.t"}
	if got := edgeList(g); !reflect.DeepEqual(got, want) {
		t.Errorf("edges %q, want %q", got, want)
	}
	rules := map[string]string{}
	for _, e := range g.Edges {
		rules[e.Input] = e.Rule
	}
	if rules["tallies"] != "wiring" || rules["feed.raw"] != "explicit" || rules["t"] != "reference" {
		t.Errorf("rules %v", rules)
	}
	if !reflect.DeepEqual(g.Wiring.Immaterial["feed"], []string{"seen"}) {
		t.Errorf("immaterial %v", g.Wiring.Immaterial)
	}
	// An input nothing maintains, of a node the root does not reach, is
	// no error of the root's graph.
	if err := os.WriteFile(filepath.Join(dir, "lone.prose.md"), []byte(node("lone", "responsibility", "- `funding`: kept elsewhere", "- `w`: n")), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags, err = Load(filepath.Join(dir, "sum.prose.md"))
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if len(g.Nodes) != 2 || g.Node("other") != nil {
		t.Errorf("root file graph has %d nodes", len(g.Nodes))
	}
}

// Words of a sentence: a family named by its stem binds it where only
// one node has it; "not just" includes what it names.
func TestSentenceFamilyStemAndInclusiveNot(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"inbox.prose.md": node("signal-inbox", "gateway", "", "#### acct:<id>\n\nOne account."),
		"a.prose.md":     node("a", "gateway", "", "- `x`: n"),
		"b.prose.md":     node("b", "gateway", "", "- `y`: n"),
		"sum.prose.md":   node("sum", "responsibility", "- `accounts`: the gateway's per-account `acct` facets.\n- `both`: the `a` truth, not just the `b` one.", "- `total`: n"),
	})
	g, diags, err := Load(dir)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	want := []string{"a.@atomic -> sum.both", "b.@atomic -> sum.both", "signal-inbox.acct:<id> -> sum.accounts"}
	if got := edgeList(g); !reflect.DeepEqual(got, want) {
		t.Errorf("edges %q, want %q", got, want)
	}
}

// A facet tied to one node by the sentence ("`X`'s `F`", "the `F` facet
// of `X`") is that node's alone, though another producer has one so
// named.
func TestSentenceTiesAFacetToItsNode(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.prose.md":   node("a", "gateway", "", "#### risk\n\nR.\n\n#### score\n\nS."),
		"b.prose.md":   node("b", "gateway", "", "#### risk\n\nR.\n\n#### score\n\nS."),
		"sum.prose.md": node("sum", "responsibility", "- `mix`: the `a`'s `risk` facet and the `b` truth.\n- `mix2`: the `score` facet of `b`, and `a`.\n- `both`: the `risk` facets of `a` and `b`.\n- `plain`: the `a` gateway's score facet, the risk facet of `b`.", "- `total`: n"),
	})
	g, diags, err := Load(dir)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	want := []string{"a.@atomic -> sum.mix2", "a.risk -> sum.both", "a.risk -> sum.mix", "a.score -> sum.plain", "b.@atomic -> sum.mix", "b.risk -> sum.both", "b.risk -> sum.plain", "b.score -> sum.mix2"}
	if got := edgeList(g); !reflect.DeepEqual(got, want) {
		t.Errorf("edges %q, want %q", got, want)
	}
}

// A spec whose front matter cannot be read is not left out of the graph
// in silence: its kind is unknown, so Load reports it as an error, even
// where no other node reads it. A file that is plainly not a node (a
// function) stays out without one.
func TestUnreadableFrontMatterIsAnError(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md":   node("feed", "gateway", "", "- `x`: the feed"),
		"audit.prose.md":  "---\nname: audit\nkind: [responsibility\n---\n\n# audit\n\n### Maintains\n\n- `seen`: what feed says\n",
		"helper.prose.md": "---\nname: helper\nkind: function\n---\n\n# helper\n\n### Returns\n\n- `y`: text\n",
	})
	g, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, d := range diags.Errors() {
		found = append(found, d.String())
	}
	if len(found) != 1 || !strings.Contains(found[0], "audit.prose.md:") || !strings.Contains(found[0], "[spec/front-matter]") {
		t.Fatalf("errors %q: want one spec/front-matter error naming audit.prose.md", found)
	}
	if g.Node("feed") == nil || g.Node("audit") != nil || g.Node("helper") != nil {
		t.Fatalf("nodes: feed %v, audit %v, helper %v", g.Node("feed") != nil, g.Node("audit") != nil, g.Node("helper") != nil)
	}
}

// A wiring file key names its subscriber by id or by name, as a Requires
// sentence does.
func TestWiringKeyByName(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sum.prose.md":      node("sum", "gateway", "", "- `total`: n"),
		"alert.prose.md":    strings.Replace(node("alert", "responsibility", "- `money`: the amount", "- `big`: n"), "kind:", "id: 067NC4KG01RG50R40M30E20918\nkind:", 1),
		"prose.wiring.yaml": "alert.money: sum.total\n",
	})
	g, diags, err := Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if got := edgeList(g); len(got) != 1 || got[0] != "sum.total -> 067NC4KG01RG50R40M30E20918.money" {
		t.Errorf("edges %v", got)
	}
	// The pictures name the node as its file does, beside its id.
	for format, want := range map[string]string{
		"mermaid": `n1["067NC4KG01RG50R40M30E20918 (alert)"]`,
		"dot":     `"067NC4KG01RG50R40M30E20918" [shape=box, label="067NC4KG01RG50R40M30E20918 (alert)"];`,
	} {
		b, err := g.Format(format)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v\n%s\nwant %s", format, err, b, want)
		}
	}
}

// A wake source written apart ("self driven", "input_driven",
// "externally driven") or run together ("selfdriven") is an error naming
// the one meant: read as written the node would wake on its inputs
// alone, with no cadence; other words with "driven" are not.
func TestContinuityWrittenApart(t *testing.T) {
	for _, tc := range []struct{ continuity, want string }{
		{"self driven, daily", `a.prose.md:14:1: error: ### Continuity names "self driven", which is no wake source; write self-driven (input-driven, self-driven or external-driven) [graph/continuity]`},
		{"externally driven by a webhook", `write external-driven`},
		{"input_driven", `write input-driven`},
		{"selfdriven daily", `### Continuity names "selfdriven", which is no wake source; did you mean self-driven?`},
		{"input-driven plus self-driven every 6 hours", ""},
		{"it is driven by its inputs; data driven", ""},
	} {
		src := "---\nname: a\nkind: responsibility\n---\n\n# A\n\n### Maintains\n\n- `x`: a value\n\n### Continuity\n\n" + tc.continuity + "\n"
		_, diags, err := Load(writeFiles(t, map[string]string{"a.prose.md": src}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeContinuity) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diagnostics:\n%s\nwant:\n%s", tc.continuity, got, tc.want)
		}
	}
}

// A responsibility whose ### Continuity says external-driven is warned
// of at the section: events go to gateways only, so nothing outside
// would wake it. A gateway saying so, or a responsibility saying
// input-driven, is not.
func TestExternalDrivenResponsibilityIsWarned(t *testing.T) {
	for _, tc := range []struct{ kind, continuity, want string }{
		{"responsibility", "- external-driven (a webhook)", `a.prose.md:12:1: warning: a is a responsibility whose ### Continuity says external-driven, but prose delivers events to gateways only`},
		{"gateway", "- external-driven", ""},
		{"responsibility", "- input-driven", ""},
	} {
		src := "---\nname: a\nkind: " + tc.kind + "\n---\n\n# A\n\n### Maintains\n\n- `x`: a value\n\n### Continuity\n\n" + tc.continuity + "\n"
		_, diags, err := Load(writeFiles(t, map[string]string{"a.prose.md": src}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, "external-driven, but") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: diagnostics:\n%s\nwant:\n%s", tc.kind, tc.continuity, got, tc.want)
		}
	}
}

// A Requires item holding a nested list is a warning at the nested
// bullet: its bullets are words of the item, not inputs of their own.
func TestRequiresNestedList(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"orders.prose.md": node("orders", "gateway", "", "- `total`: the sum\n- `count`: how many"),
		"alert.prose.md":  node("alert", "responsibility", "- From `orders`:\n  - `total`: the sum\n  - `count`: how many\n- `sum`: the `total` of `orders`,\n  read as it is", "- `big`: n"),
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `alert.prose.md:11:3: warning: input "orders" of alert holds a nested list, whose bullets are read as words of this one item, not as inputs of their own: write each input as an item of ### Requires (- ` + "`NAME`: ... from `PRODUCER`" + `) [graph/nested-item]`
	got := diags.String()
	if !strings.Contains(got, want) || strings.Count(got, CodeNested) != 1 {
		t.Errorf("diagnostics:\n%s\nwant once:\n%s", got, want)
	}
}

// A function file named as a node is: `call report` and --slot report
// would reach one of the two.
func TestFunctionNamedAsANode(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md":   node("feed", "gateway", "", "- `n`: n"),
		"report.prose.md": node("report", "responsibility", "- `n`: from `feed`", "- `line`: n"),
		"fmt.prose.md":    "---\nname: report\nkind: function\n---\n\n# Format\n\n### Parameters\n\n- `band`: the band\n\n### Returns\n\n- `text`: formatted\n",
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `fmt.prose.md:2:7: error: function name "report" is also the responsibility report's (report.prose.md): a call or a --slot by that name would reach only one of them; rename one [graph/duplicate-name]`
	if got := strings.ReplaceAll(diags.String(), dir+"/", ""); strings.TrimSpace(got) != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}

// An item with no name of its own ("the **Feed** truth") is named by the
// node it reads, so two such items are two inputs, not one fan-in under
// ""; one that reads several nodes is asked for a name.
func TestUnnamedItemTakesItsProducersID(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md":    strings.Replace(node("price-feed", "gateway", "", "- `price` (number): p"), "# price-feed", "# Price Feed", 1),
		"weather.prose.md": strings.Replace(node("weather", "gateway", "", "- `temp` (number): t"), "# weather", "# Weather", 1),
		"v.prose.md":       node("v", "responsibility", "- the **Price Feed** truth.\n- the **Weather** truth.", "- `out`: x"),
	})
	g, diags, err := Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	var got []string
	for _, e := range g.Edges {
		got = append(got, e.Input+"<-"+e.Producer+"."+e.Facet)
	}
	sort.Strings(got)
	if want := []string{"price-feed<-price-feed.@atomic", "weather<-weather.@atomic"}; !reflect.DeepEqual(got, want) {
		t.Errorf("edges %q, want %q", got, want)
	}
	dir = writeFiles(t, map[string]string{
		"feed.prose.md":    strings.Replace(node("price-feed", "gateway", "", "- `price` (number): p"), "# price-feed", "# Price Feed", 1),
		"weather.prose.md": strings.Replace(node("weather", "gateway", "", "- `temp` (number): t"), "# weather", "# Weather", 1),
		"v.prose.md":       node("v", "responsibility", "- the **Price Feed** and **Weather** truths.", "- `out`: x"),
	})
	if _, diags, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if want := "v.prose.md:10:3: error: this input of v reads price-feed, weather but has no name of its own, so its render could not tell it from another: begin the item with one (- `NAME`: ...) [graph/ambiguous]"; !strings.Contains(diags.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", diags, want)
	}
}

// A Maintains that opens by naming its truth ("The `PriceLedger` — ...",
// as upstream's counter-events does) gives a name a subscriber may
// require, without the word world-model; an opening about a field does
// not.
func TestMaintainsOpeningNamesTheTruth(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md": node("price-feed", "gateway", "", "The `PriceLedger` — the standing truth every subscriber reads.\n\n- `price` (number): p"),
		"v.prose.md":    node("v", "responsibility", "- `PriceLedger`: the ledger.", "- `out`: x"),
	})
	g, diags, err := Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if got := edgeList(g); !reflect.DeepEqual(got, []string{"price-feed.@atomic -> v.PriceLedger"}) {
		t.Errorf("edges %q", got)
	}
	dir = writeFiles(t, map[string]string{
		"feed.prose.md": node("price-feed", "gateway", "", "The `price` is the latest.\n\n- `price` (number): p"),
		"v.prose.md":    node("v", "responsibility", "- `Price`: the ledger.", "- `out`: x"),
	})
	if _, diags, err = Load(dir); err != nil || !strings.Contains(diags.String(), "graph/unsatisfied") && !strings.Contains(diags.String(), "graph/unmaintained") {
		t.Errorf("want `Price` unbound: %v %s", err, diags)
	}
}
