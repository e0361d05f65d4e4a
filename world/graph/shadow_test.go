package graph

import (
	"strings"
	"testing"
)

// An Execution reading a name its node both requires and maintains reads
// the input; the warning says so at the read, and names how to read the
// prior. A name the Execution binds itself, or an item naming the node's
// own world model, is no such read.
func TestPriorShadowed(t *testing.T) {
	sensor := node("sensor", "gateway", "", "- `latest` (number): the reading")
	copyOf := func(requires, body string) string {
		return node("copy", "responsibility", requires, "- `latest` (number): the previous latest plus the new") +
			"\n### Execution\n\n```prose\n" + body + "\n```\n"
	}
	for _, tc := range []struct {
		name, requires, body, want string
	}{
		{"input and prior share a name", "- `latest`: the `latest` of `sensor`.", "return { latest: latest + 1 }",
			`copy.prose.md:19:18: warning: latest in the Execution of copy is its input latest (its ### Requires item), never its own prior latest, which its ### Maintains declares too: read the prior as read_world_model("self").latest, or give the input another name (` + "`latest_in`" + `: ...) so each name means one value [graph/prior-shadowed]`},
		{"names apart", "- `reading`: the `latest` of `sensor`.", "return { latest: reading + 1 }", ""},
		{"the key of the returned object only", "- `latest`: the `latest` of `sensor`.", "let x = 1\nreturn { latest: x }", ""},
		{"bound by the Execution", "- `latest`: the `latest` of `sensor`.", "let latest = 2\nreturn { latest: latest }", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, err := Load(writeFiles(t, map[string]string{"sensor.prose.md": sensor, "copy.prose.md": copyOf(tc.requires, tc.body)}))
			if err != nil {
				t.Fatal(err)
			}
			got := diags.String()
			if tc.want == "" && strings.Contains(got, CodePriorShadowed) || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// An Execution reading, from a producer's whole truth, a field the
// producer calls immaterial is warned of at the member: its changes wake
// no subscriber of the whole truth. A material field, or the field read
// as an item of its own, is not.
func TestImmaterialRead(t *testing.T) {
	src := node("src", "gateway", "", "- `v` (number): v.\n- `seen_at` — an immaterial monotone marker.")
	sub := func(requires, body string) string {
		return node("sub", "responsibility", requires, "- `w`: x") + "\n### Execution\n\n```prose\n" + body + "\n```\n"
	}
	for _, tc := range []struct {
		name, requires, body, want string
	}{
		{"an immaterial field of the whole truth", "- `src`: the whole truth.", "return { w: src.seen_at }",
			"sub.prose.md:19:17: warning: src.seen_at reads seen_at, which src's ### Maintains calls immaterial: a change of it wakes no subscriber of src's whole truth, so sub would keep the value of its last render; to be woken by it, read it as an item of its own (- `seen_at`: the `seen_at` of `src`), or make it material [graph/immaterial-read]"},
		{"a material field", "- `src`: the whole truth.", "return { w: src.v }", ""},
		{"the field as an item", "- the `seen_at` of `src`.", "return { w: seen_at }", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, err := Load(writeFiles(t, map[string]string{"src.prose.md": src, "sub.prose.md": sub(tc.requires, tc.body)}))
			if err != nil {
				t.Fatal(err)
			}
			got := diags.String()
			if tc.want == "" && strings.Contains(got, CodeImmaterialRead) || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// An item that reads a facet and names, in backticks, a field of its
// producer it does not read is warned of: the input is the whole facet.
// The field read alone, or the facet alone, is not.
func TestFieldNamedOfAFacet(t *testing.T) {
	orders := node("orders", "gateway", "", "- `total` (number): t\n- `count` (integer): c\n\n#### totals\n\n`total` and `count`.")
	for _, tc := range []struct{ requires, want string }{
		{"- `x`: the `total` of the `totals` facet of `orders`.",
			"sum.prose.md:10:3: warning: input \"x\" of sum reads the facet totals of orders, an object, and names its field total (\"the `total` of\"): as written the input is the whole facet; write `orders.total` to read the field alone [graph/unsatisfied]"},
		{"- `x`: the `totals` facet of `orders`.", ""},
		{"- `x`: the `total` of `orders`.", ""},
	} {
		_, diags, err := Load(writeFiles(t, map[string]string{"orders.prose.md": orders, "sum.prose.md": node("sum", "responsibility", tc.requires, "- `v`: n")}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, "reads the facet") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: diagnostics:\n%s\nwant:\n%s", tc.requires, got, tc.want)
		}
	}
}
