package graph

import (
	"strings"
	"testing"
)

// A postcondition about a field its Maintains does not declare is never
// checked: an error at its line, with did-you-mean; one about a declared
// field, a facet or a path into a field is not.
func TestPostconditionFields(t *testing.T) {
	for _, tc := range []struct{ claim, want string }{
		{"`totl` is at least 0", "sum.prose.md:12:18: error: postcondition of sum names `totl`, which its ### Maintains does not declare, so it is never checked; did you mean `total`? [graph/postcondition]"},
		{"`tax` is at least 0", "sum.prose.md:12:18: error: postcondition of sum names `tax`, which its ### Maintains does not declare, so it is never checked (its parts: total, count, lines): name one of them, or declare `tax` among its fields [graph/postcondition]"},
		{"`total` is at least 0", ""},
		{"`lines` has at most 3 items", ""},
		{"`count.value` is at least 0", ""},
	} {
		dir := writeFiles(t, map[string]string{
			"sum.prose.md": node("sum", "responsibility", "", "- `total` (number): the sum\n- `count`: how many\n- postcondition: "+tc.claim+"\n\n#### lines\n\nThe lines."),
		})
		_, diags, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodePostcondition) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: diagnostics:\n%s\nwant:\n%s", tc.claim, got, tc.want)
		}
	}
}

// An immaterial name near a field it does not name leaves that field
// material: a warning, at the name in the Maintains or at the wiring
// file's line; a declared field, or a name near none, is not one.
func TestImmaterialSlips(t *testing.T) {
	for _, tc := range []struct{ maintains, wiring, want string }{
		{"- `received`: a stamp\n- `total`: n\n- immaterial: `recieved`", "",
			"sum.prose.md:12:16: warning: sum calls `recieved` immaterial, which it does not declare; did you mean `received`? As written `received` stays material: each change of it moves the fingerprint and wakes the subscribers [graph/immaterial]"},
		{"- `received`: a stamp\n- `total`: n", "immaterial:\n  sum: [recieved]\n",
			"prose.wiring.yaml:2:3: warning: immaterial: sum: `recieved` is no field sum declares; did you mean `received`?"},
		{"- `received`: a stamp\n- `total`: n\n- immaterial: `received`, `fetched_at`", "", ""},
		{"- `received`: a stamp\n- `total`: n", "immaterial:\n  sum: [received, request_id]\n", ""},
	} {
		files := map[string]string{"sum.prose.md": node("sum", "responsibility", "", tc.maintains)}
		if tc.wiring != "" {
			files[WiringFile] = tc.wiring
		}
		_, diags, err := Load(writeFiles(t, files))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeImmaterial) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diagnostics:\n%s\nwant:\n%s", tc.maintains, got, tc.want)
		}
	}
}

// A wiring file entry for an item its sentence already binds is not
// used: an error at the entry, naming what is wired; an entry that says
// what the sentence binds, or wires an item no rule binds, is not.
func TestWiringEntryForABoundItem(t *testing.T) {
	for _, tc := range []struct{ requires, wiring, want string }{
		{"- `amount`: the `total` and `count` of `orders`", "alert.amount: orders.total\n",
			"alert.prose.md:10:3); the file wires only items no rule binds: remove the entry, or name orders.total in the item (`orders.total`) [graph/wiring]"},
		{"- `amount`: the `total` and `count` of `orders`", "alert.amount: orders\n",
			"alert.prose.md:10:3); the file wires only items no rule binds: remove the entry, or name orders in the item (`orders`) [graph/wiring]"},
		{"- `amount`: the `total` of `orders`", "alert.amount: orders.total\n", ""},
		{"- `amount`: the money", "alert.amount: orders.total\n", ""},
	} {
		dir := writeFiles(t, map[string]string{
			"orders.prose.md": node("orders", "gateway", "", "- `total` (number): the sum\n- `count` (integer): how many"),
			"alert.prose.md":  node("alert", "responsibility", tc.requires, "- `big`: n"),
			WiringFile:        tc.wiring,
		})
		_, diags, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want != "" && !strings.Contains(got, "prose.wiring.yaml:1:1: error: alert.amount: "+strings.TrimSpace(tc.wiring[len("alert.amount: "):])+" is not used: the item's sentence already binds it to orders.count, orders.total (") {
			t.Errorf("%s: diagnostics:\n%s", tc.requires, got)
		}
		if tc.want == "" && strings.Contains(got, "graph/wiring") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: diagnostics:\n%s\nwant:\n%s", tc.requires, got, tc.want)
		}
	}
}

// An event key declared with a type prose knows is checked: a value of
// another type is refused, naming the key; an optional key may be null.
func TestEventShapeTypes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md": "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Receives\n\n- `{ id: string, value: number, note?: string, raw: blob }`\n\n### Maintains\n\n- `n`: n\n",
	})
	g, diags, err := Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	n := g.Node("feed")
	for _, tc := range []struct {
		event map[string]any
		want  string
	}{
		{map[string]any{"id": "e1", "value": "5", "raw": 1.0}, `the event gives "5" for "value", which { id: string, value: number, note?: string, raw: blob } (feed's ### Receives, `},
		{map[string]any{"id": "e1", "value": 5.0, "note": nil, "raw": "x"}, ""},
		{map[string]any{"id": "e1", "value": 5.0, "raw": []any{}}, ""},
	} {
		err := n.CheckEvent(tc.event)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.event, err, tc.want)
		}
	}
}

// A material: bullet naming fields, while other fields are not called
// immaterial, is warned of: prose keeps every field in the fingerprint
// unless it is called immaterial. With the rest called immaterial, or
// a bullet naming no field, it is not.
func TestMaterialOnly(t *testing.T) {
	for _, tc := range []struct{ maintains, want string }{
		{"- `price` (number): p\n- `note` (string): n\n- material: `price` only.",
			"sum.prose.md:12:14: warning: a material: bullet does not make the other fields of sum immaterial: every field is in the fingerprint unless called immaterial, so a change of `note` still wakes its subscribers; to leave them out write - immaterial: `note` [graph/material]"},
		{"- `price` (number): p\n- `note` (string): n\n- material: `price` only.\n- immaterial: `note`", ""},
		{"- `price` (number): p\n- `note` (string): n\n- material: the price and the note.", ""},
	} {
		_, diags, err := Load(writeFiles(t, map[string]string{"sum.prose.md": node("sum", "gateway", "", tc.maintains)}))
		if err != nil {
			t.Fatal(err)
		}
		got := diags.String()
		if tc.want == "" && strings.Contains(got, CodeMaterial) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diagnostics:\n%s\nwant:\n%s", tc.maintains, got, tc.want)
		}
	}
}
