package graph

import (
	"strings"
	"testing"
)

// An Execution that reads a member of an input the producer's whole truth
// does not hold is an error at the member; a member it holds, or an input
// from a faceted producer (whose truth has more than one form), is not.
func TestExecutionMembers(t *testing.T) {
	orders := "---\nname: orders\nkind: gateway\n---\n\n# Orders\n\n### Maintains\n\n- `total` (number): the sum\n- `count` (integer): how many\n"
	faceted := orders + "\n#### lines\n\nthe lines\n"
	alert := func(expr string) string {
		return node("alert", "responsibility", "- `book`: the whole truth of `orders`", "- `big`: whether it is large") +
			"\n### Execution\n\n```prose\nlet t = " + expr + "\nreturn { big: t }\n```\n"
	}
	for _, tc := range []struct {
		name, orders, expr, want string
	}{
		{"a misspelt field", orders, "book.totl",
			`alert.prose.md:19:14: error: book has no member "totl": it is the whole truth of orders, whose ### Maintains declares total, count; did you mean "total"? [graph/unknown-member]`},
		{"a field it does not maintain", orders, "book.tax",
			`alert.prose.md:19:14: error: book has no member "tax": it is the whole truth of orders, whose ### Maintains declares total, count: read one of them, or declare the member in that ### Maintains [graph/unknown-member]`},
		{"a field it maintains", orders, "book.total", ""},
		{"a faceted producer", faceted, "book.tax", ""},
		{"a faceted producer, misspelt", faceted, "book.totl",
			`alert.prose.md:19:14: error: book has no member "totl": it is the whole truth of orders, whose ### Maintains declares total, count, lines; did you mean "total"? [graph/unknown-member]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, err := Load(writeFiles(t, map[string]string{"orders.prose.md": tc.orders, "alert.prose.md": alert(tc.expr)}))
			if err != nil {
				t.Fatal(err)
			}
			got := diags.String()
			if tc.want == "" && strings.Contains(got, CodeUnknownMember) || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// A fan-in is an object keyed by producer, each producer's whole truth
// an object of its fields, and a producer read for several parts an
// object of them: a key or member it lacks is an error at the member.
func TestExecutionMembersOfAFanIn(t *testing.T) {
	orders := "---\nname: orders\nkind: gateway\n---\n\n# Orders\n\n### Maintains\n\n- `total` (number): the sum\n- `count` (integer): how many\n"
	feed := "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `items`: the items\n"
	for _, tc := range []struct{ requires, expr, want string }{
		{"- `both`: the truths of `orders` and `feed`", "both.orders.totl", `both.orders has no member "totl": it is the whole truth of orders, whose ### Maintains declares total, count; did you mean "total"?`},
		{"- `both`: the truths of `orders` and `feed`", "both.fed", `both has no member "fed": it is a fan-in keyed by producer: feed, orders; did you mean "feed"?`},
		{"- `both`: the `total` and `count` of `orders`, and `feed`", "both.orders.tax", `both.orders has no member "tax": it is orders's parts in a fan-in, keyed by part: count, total: read one of them, or name what it reads in its ### Requires item [graph/unknown-member]`},
		{"- `both`: the `total` and `count` of `orders`", "both.cont", `both has no member "cont": it is a fan-in of parts of orders, keyed by part: count, total; did you mean "count"?`},
		{"- `both`: the truths of `orders` and `feed`", "both.feed.items", ""},
		{"- `both`: the `total` and `count` of `orders`, and `feed`", "both.orders.count", ""},
	} {
		alert := node("alert", "responsibility", tc.requires, "- `big`: whether it is large") +
			"\n### Execution\n\n```prose\nlet t = " + tc.expr + "\nreturn { big: t }\n```\n"
		_, diags, err := Load(writeFiles(t, map[string]string{"orders.prose.md": orders, "feed.prose.md": feed, "alert.prose.md": alert}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeUnknownMember) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s / %s: diagnostics:\n%s\nwant:\n%s", tc.requires, tc.expr, got, tc.want)
		}
	}
}

// An input that is a producer's whole truth, as a condition, is always
// true: an error at the name, with the boolean field it may mean; a
// field of it, or an input the program assigns anew, is not one.
func TestWholeTruthAsACondition(t *testing.T) {
	summary := "---\nname: summary\nkind: responsibility\n---\n\n# Summary\n\n### Maintains\n\n- `total` (number): the sum\n- `crossed` (boolean): over the threshold\n"
	for _, tc := range []struct{ body, want string }{
		{"if s:\n  return { big: true }\nreturn { big: false }",
			`alert.prose.md:19:4: error: s is the whole truth of summary, an object of total, crossed that is never empty, so as a condition it is always true: test one of its fields (did you mean s.crossed?), or read that field alone (` + "`summary.FIELD`" + ` in its ### Requires item) [graph/always-true]`},
		{"let big = false\nloop until not s (max: 3):\n  big = true\nreturn { big: big }", `error: s is the whole truth of summary`},
		{"if s.crossed and s.total > 3:\n  return { big: true }\nreturn { big: false }", ""},
		{"s = s.crossed\nif s:\n  return { big: true }\nreturn { big: false }", ""},
	} {
		alert := node("alert", "responsibility", "- `s`: the whole truth of `summary`", "- `big`: whether it is large") +
			"\n### Execution\n\n```prose\n" + tc.body + "\n```\n"
		_, diags, err := Load(writeFiles(t, map[string]string{"summary.prose.md": summary, "alert.prose.md": alert}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeAlwaysTrue) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diagnostics:\n%s\nwant:\n%s", tc.body, got, tc.want)
		}
	}
}

// A comparison that can never hold with the kinds the producer declares
// is an error: an object with a boolean, an integer field with text.
func TestExecutionComparisonOfProducerKinds(t *testing.T) {
	summary := "---\nname: summary\nkind: responsibility\n---\n\n# Summary\n\n### Maintains\n\n- `total` (integer): the sum\n- `crossed` (boolean): over the threshold\n"
	for _, tc := range []struct{ cond, want string }{
		{"s == true", `alert.prose.md:19:6: error: this comparison of s (an object) with a boolean is always false, as its producer's ### Maintains declares it: did you mean s.crossed? [graph/type-mismatch]`},
		{"s == 3", `alert.prose.md:19:6: error: this comparison of s (an object) with an integer is always false, as its producer's ### Maintains declares it: did you mean s.total? [graph/type-mismatch]`},
		{`s == "x"`, `alert.prose.md:19:6: error: this comparison of s (an object) with text is always false, as its producer's ### Maintains declares it: compare a value of the same kind, or read the field meant [graph/type-mismatch]`},
		{`s.total == "4"`, `alert.prose.md:19:12: error: this comparison of s.total (an integer) with text is always false`},
		{"s.crossed == true", ""},
	} {
		alert := node("alert", "responsibility", "- `s`: the whole truth of `summary`", "- `big`: whether it is large") +
			"\n### Execution\n\n```prose\nif " + tc.cond + ":\n  return { big: true }\nreturn { big: false }\n```\n"
		_, diags, err := Load(writeFiles(t, map[string]string{"summary.prose.md": summary, "alert.prose.md": alert}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeTypeMismatch) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diagnostics:\n%s\nwant:\n%s", tc.cond, got, tc.want)
		}
	}
}

// An untyped input that reads one typed field of its producer is checked
// as of that type: a comparison it never satisfies is an error.
func TestExecutionInputOfAFieldsType(t *testing.T) {
	summary := "---\nname: summary\nkind: responsibility\n---\n\n# Summary\n\n### Maintains\n\n- `total` (integer): the sum\n- `crossed` (boolean): over the threshold\n"
	for _, tc := range []struct{ cond, want string }{
		{`c == "true"`, `alert.prose.md:19:6: error: this comparison of c (a boolean) with text is always false`},
		{"c == true", ""},
	} {
		alert := node("alert", "responsibility", "- `c`: the `crossed` of `summary`", "- `big`: whether it is large") +
			"\n### Execution\n\n```prose\nif " + tc.cond + ":\n  return { big: true }\nreturn { big: false }\n```\n"
		_, diags, err := Load(writeFiles(t, map[string]string{"summary.prose.md": summary, "alert.prose.md": alert}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeTypeMismatch) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diagnostics:\n%s\nwant:\n%s", tc.cond, got, tc.want)
		}
	}
}

// A gateway no node reads is a warning at its front matter; one read, or
// alone in its project, is not.
func TestUnreadGateway(t *testing.T) {
	feed := node("feed", "gateway", "", "- `n`: n")
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"feed.prose.md": feed, "trend.prose.md": node("trend", "responsibility", "", "- `t`: n") + "\n### Continuity\n\nself-driven daily\n"},
			"feed.prose.md:2:7: warning: no node reads gateway feed: its events wake no one; name it in the ### Requires item meant to read it (- `NAME`: ... from `feed`) [graph/unread]"},
		{map[string]string{"feed.prose.md": feed, "trend.prose.md": node("trend", "responsibility", "- `n`: from `feed`", "- `t`: n")}, ""},
		{map[string]string{"feed.prose.md": feed}, ""},
	} {
		dir := writeFiles(t, tc.files)
		_, diags, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(diags.String(), dir+"/", "")
		if tc.want == "" && strings.Contains(got, CodeUnread) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
		}
	}
}

// A read_world_model of the node itself or of another node is an object
// of what that node's ### Maintains declares, on a cold start as after:
// a member it does not declare is an error at the member, naming the
// members there are (a faceted truth, which may hold a field at the top
// or inside a facet, only a near miss of one of them).
func TestWorldReadMembers(t *testing.T) {
	orders := "---\nname: orders\nkind: gateway\n---\n\n# Orders\n\n### Maintains\n\n- `total` (number): the sum\n- `count` (integer): how many\n"
	alert := func(maintains, body string) string {
		return node("alert", "responsibility", "- `book`: the whole truth of `orders`", maintains) +
			"\n### Execution\n\n```prose\n" + body + "\nreturn { mark: t, big: book.total > 3 }\n```\n"
	}
	own := "- `mark` (number): the largest seen\n- `big`: whether it is large"
	faceted := own + "\n\n#### history\n\nthe past marks\n"
	for _, tc := range []struct {
		name, maintains, body, want string
	}{
		{"self through a name", own, "let p = read_world_model(\"self\")\nlet t = p.mrk",
			`alert.prose.md:21:11: error: p has no member "mrk": it is the prior truth of alert (null on a cold start), whose ### Maintains declares mark, big; did you mean "mark"? [graph/unknown-member]`},
		{"self directly", own, "let t = read_world_model(\"self\").markk",
			`alert.prose.md:20:34: error: read_world_model("self") has no member "markk": it is the prior truth of alert (null on a cold start), whose ### Maintains declares mark, big; did you mean "mark"? [graph/unknown-member]`},
		{"self by its name, a member not maintained", own, "let t = read_world_model(\"alert\").peak",
			`alert.prose.md:20:35: error: read_world_model("alert") has no member "peak": it is the prior truth of alert (null on a cold start), whose ### Maintains declares mark, big: read one of them, or declare the member in that ### Maintains [graph/unknown-member]`},
		{"another node, misspelt", own, "let t = read_world_model(\"orders\").totl",
			`alert.prose.md:20:36: error: read_world_model("orders") has no member "totl": it is the whole truth of orders, whose ### Maintains declares total, count; did you mean "total"? [graph/unknown-member]`},
		{"another node, not maintained", own, "let o = read_world_model(\"orders\")\nlet t = o.tax",
			`alert.prose.md:21:11: error: o has no member "tax": it is the whole truth of orders, whose ### Maintains declares total, count: read one of them, or declare the member in that ### Maintains [graph/unknown-member]`},
		{"a faceted truth, misspelt", faceted, "let t = read_world_model(\"self\").histroy",
			`alert.prose.md:25:34: error: read_world_model("self") has no member "histroy": it is the prior truth of alert (null on a cold start), whose ### Maintains declares mark, big, history; did you mean "history"? [graph/unknown-member]`},
		{"a faceted truth, another word", faceted, "let t = read_world_model(\"self\").peak", ""},
		{"members it has", own, "let p = read_world_model(\"self\")\nlet t = p.mark\nif read_world_model(\"orders\").count > 2:\n  t = p.big", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, err := Load(writeFiles(t, map[string]string{"orders.prose.md": orders, "alert.prose.md": alert(tc.maintains, tc.body)}))
			if err != nil {
				t.Fatal(err)
			}
			got := diags.String()
			if tc.want == "" && strings.Contains(got, CodeUnknownMember) || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// A gateway's ### Requires is not wired (a gateway's input arrives as
// events) and is an error at its heading, not an edge.
func TestGatewayRequiresIsNotWired(t *testing.T) {
	config := node("config", "responsibility", "", "- `threshold` (number): the limit")
	alerts := node("alerts", "gateway", "- `threshold`: *(Maintained by `config`.)*", "- `last`: the last alert")
	g, diags, err := Load(writeFiles(t, map[string]string{"config.prose.md": config, "alerts.prose.md": alerts}))
	if err != nil {
		t.Fatal(err)
	}
	want := "alerts.prose.md:8:1: error: ### Requires does not apply to a gateway, and prose does not wire it"
	if !strings.Contains(diags.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant %s", diags, want)
	}
	if len(g.Edges) != 0 {
		t.Errorf("edges: %v", g.Edges)
	}
}

// A file of kind function with a ### Maintains is no node of the graph
// (functions are called, not wired): a drain would leave it out with
// exit 0, so it is an error at the section.
func TestFunctionThatMaintains(t *testing.T) {
	feed := node("feed", "gateway", "", "- `items` (string[]): the items")
	summary := node("summary", "function", "- `items`: from `feed`", "- `count` (integer): how many")
	g, diags, err := Load(writeFiles(t, map[string]string{"feed.prose.md": feed, "summary.prose.md": summary}))
	if err != nil {
		t.Fatal(err)
	}
	want := "summary.prose.md:12:1: error: summary is kind: function, and a function keeps no truth: it is no node of the world graph, so no drain renders it and its ### Maintains is kept by nothing; make it kind: responsibility, or write ### Returns for a function to call [graph/function-truth]"
	if !strings.Contains(diags.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant %s", diags, want)
	}
	if len(g.Nodes) != 1 {
		t.Errorf("nodes: %v", g.Nodes)
	}
}

// A Requires item that names the node's own world model is its prior
// truth: a member its ### Maintains does not declare is an error there
// too.
func TestPriorItemMembers(t *testing.T) {
	src := "---\nname: status-board\nkind: responsibility\n---\n\n# Status Board\n\n### Requires\n\n- prior `StatusBoard`: the previous level\n\n### Maintains\n\nThe `StatusBoard` world-model.\n\n- `level`: the level\n- `changes`: how many changes\n\n### Execution\n\n```prose\nlet changes = 0\nif StatusBoard is not null:\n  changes = StatusBoard.chnges\nreturn { level: \"low\", changes: changes }\n```\n"
	_, diags, err := Load(writeFiles(t, map[string]string{"board.prose.md": src}))
	if err != nil {
		t.Fatal(err)
	}
	want := `board.prose.md:24:25: error: StatusBoard has no member "chnges": it is the prior truth of status-board (null on a cold start), whose ### Maintains declares level, changes; did you mean "changes"? [graph/unknown-member]`
	if !strings.Contains(diags.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant %s", diags, want)
	}
}
