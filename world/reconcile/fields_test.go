package reconcile_test

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// fixed renders the gateway as its last event and every other node as the
// truth it holds for that node's name.
type fixed map[string]any

func (f fixed) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if req.Node.Kind == "gateway" {
		return &reconcile.Answer{Truth: req.Events[len(req.Events)-1]}, nil
	}
	return &reconcile.Answer{Truth: f[req.Node.Name]}, nil
}

// A truth that leaves out a field its Maintains declares, or gives one of
// another type than declared, fails its render naming the field's line:
// it is not committed, and its subscriber finds the input absent rather
// than reading null or text where a number was promised.
func TestTruthFieldsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		truth any
		want  string
	}{
		{"text for a number", map[string]any{"total": "130", "count": 2.0}, `sum.prose.md:14:4: sum's truth gives "130" for its field total, which its ### Maintains declares (number): give a number`},
		{"fraction for an integer", map[string]any{"total": 130.0, "count": 2.5}, `sum.prose.md:15:4: sum's truth gives 2.5 for its field count, which its ### Maintains declares (integer)`},
		{"null for a number", map[string]any{"total": nil, "count": 2.0}, `sum.prose.md:14:4: sum's truth gives null for its field total, which its ### Maintains declares (number): give a number, or declare ` + "`total` (number, optional)" + ` if it may be empty`},
		{"field left out", map[string]any{"total": 130.0}, `sum.prose.md:15:4: sum's truth lacks the field(s) "count", which its ### Maintains declares`},
		{"misspelt field", map[string]any{"totl": 130.0, "count": 2.0}, `sum.prose.md:14:4: sum's truth lacks the field(s) "total", which its ### Maintains declares (it gives "totl": did you mean "total"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := writeProject(t, map[string]string{
				"feed.prose.md":  contract("feed", "gateway", "", "- `items`: order lines"),
				"sum.prose.md":   contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total` (number): their sum\n- `count` (integer): how many"),
				"alert.prose.md": contract("alert", "responsibility", "- `total`: the total of `sum`", "- `big` (boolean): over 100"),
			})
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			r := fixed{"sum": tc.truth, "alert": map[string]any{"big": true}}
			var alert *reconcile.Request
			o := reconcile.Options{Graph: g, Store: st, Events: map[string][]any{"feed": {map[string]any{"items": []any{}}}},
				Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
					if n.Name == "alert" {
						return rendererFunc(func(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
							alert = req
							return r.Render(ctx, req)
						}), nil
					}
					return r, nil
				}}
			res, err := reconcile.Drain(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != 1 {
				t.Fatalf("failed %d, want 1 (sum)", res.Failed)
			}
			rs, err := st.Receipts("sum")
			if err != nil || len(rs) != 1 {
				t.Fatalf("receipts of sum: %v %d", err, len(rs))
			}
			if rs[0].Status != receipt.Failed || !strings.Contains(rs[0].Reason, tc.want) {
				t.Errorf("receipt %s %q, want failed with %q", rs[0].Status, rs[0].Reason, tc.want)
			}
			if rs[0].Version != "" {
				t.Errorf("a version was committed: %s", rs[0].Version)
			}
			if alert == nil {
				t.Fatal("alert was not rendered")
			}
			if _, given := alert.Inputs["total"]; given || alert.Absent["total"] == "" {
				t.Errorf("alert was given total %v (absent %v): it must be absent", alert.Inputs["total"], alert.Absent)
			}
		})
	}
}

// A field given inside the facet that holds it is of its declared type
// there too: a subscriber of the facet reads it inside, so text where a
// number is declared fails the render as it does given as a member.
func TestFieldsInsideAFacetAreChecked(t *testing.T) {
	for _, tc := range []struct {
		truth any
		want  string
	}{
		{map[string]any{"counts": map[string]any{"total": "130", "count": 2.0}}, `sum.prose.md:14:4: sum's truth gives "130" for its field total, which its ### Maintains declares (number): give a number`},
		{map[string]any{"counts": map[string]any{"total": 130.0, "count": nil}}, `sum.prose.md:15:4: sum's truth gives null for its field count, which its ### Maintains declares (integer)`},
		{map[string]any{"counts": map[string]any{"total": 130.0, "count": 2.0}}, ""},
	} {
		g := writeProject(t, map[string]string{
			"feed.prose.md":  contract("feed", "gateway", "", "- `items`: order lines"),
			"sum.prose.md":   contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total` (number): their sum\n- `count` (integer): how many\n\n#### counts\n\nThe tallies (`total`, `count`)."),
			"alert.prose.md": contract("alert", "responsibility", "- `counts`: *(Maintained by `sum.counts`.)*", "- `big` (boolean): over 100"),
		})
		checkSum(t, g, fixed{"sum": tc.truth, "alert": map[string]any{"big": true}}, tc.truth, tc.want)
	}
}

// A field given inside a facet other than the one whose description
// names it (`count` inside `audit` where "#### counts" says `count`)
// fails the render: the facet's subscribers would read it absent. Given
// in its facet, or named by no facet, it is kept.
func TestFieldInsideTheWrongFacetFails(t *testing.T) {
	for _, tc := range []struct {
		truth any
		want  string
	}{
		{map[string]any{"counts": map[string]any{"total": 130.0}, "audit": map[string]any{"count": 2.0, "ids": []any{"a"}}}, `sum.prose.md:15:4: sum's truth gives its field count inside its facet "audit", but its ### Maintains puts it in the facet "counts" (line 18): give it there ({"counts": {"count": ...}}), so the subscribers of "counts" read it`},
		{map[string]any{"counts": map[string]any{"total": 130.0, "count": 2.0}, "audit": map[string]any{"ids": []any{"a"}}}, ""},
		{map[string]any{"counts": map[string]any{"total": 130.0, "count": 2.0, "ids": []any{"a"}}, "audit": map[string]any{}}, ""},
	} {
		g := writeProject(t, map[string]string{
			"feed.prose.md":  contract("feed", "gateway", "", "- `items`: order lines"),
			"sum.prose.md":   contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total` (number): their sum\n- `count` (integer): how many\n- `ids`: the ids\n\n#### counts\n\nThe tallies (`total`, `count`).\n\n#### audit\n\nThe ids seen."),
			"alert.prose.md": contract("alert", "responsibility", "- `counts`: *(Maintained by `sum.counts`.)*", "- `big` (boolean): over 100"),
		})
		checkSum(t, g, fixed{"sum": tc.truth, "alert": map[string]any{"big": true}}, tc.truth, tc.want)
	}
}

// A field a subscriber reads as a member, given by its producer only
// inside the facet that holds it, fails the producer's render: the
// subscriber would find it absent for ever. Given as a member it is read.
func TestSubscribedFieldOnlyInAFacetFails(t *testing.T) {
	for _, tc := range []struct {
		truth any
		want  string
	}{
		{map[string]any{"counts": map[string]any{"total": 130.0, "count": 2.0}}, `sum.prose.md:14:4: sum's truth lacks its field "total" as a member (it gives it inside its facet "counts" only), and alert read(s) it so`},
		{map[string]any{"total": 130.0, "counts": map[string]any{"total": 130.0, "count": 2.0}}, ""},
	} {
		g := writeProject(t, map[string]string{
			"feed.prose.md":  contract("feed", "gateway", "", "- `items`: order lines"),
			"sum.prose.md":   contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total` (number): their sum\n- `count` (integer): how many\n\n#### counts\n\nThe tallies (`total`, `count`)."),
			"alert.prose.md": contract("alert", "responsibility", "- `total`: the `total` of `sum`", "- `big` (boolean): over 100"),
		})
		checkSum(t, g, fixed{"sum": tc.truth, "alert": map[string]any{"big": true}}, tc.truth, tc.want)
	}
}

// A facet left out of a truth that gives, in its place, a member no
// Maintains declares near the facet's name fails the render: published,
// the facet would be absent and the part kept under the misspelt name.
// A facet left out with no such member, as no subscriber reads it, is
// kept as decided.
func TestMisspeltFacetFails(t *testing.T) {
	for _, tc := range []struct {
		truth any
		want  string
	}{
		{map[string]any{"total": 1.0, "hirng": map[string]any{"open": 3.0}}, `sum.prose.md:16:6: sum's truth lacks its facet "hiring", which its ### Maintains declares, and gives "hirng": did you mean "hiring"?`},
		{map[string]any{"total": 1.0, "note": "x"}, ""},
		{map[string]any{"total": 1.0, "hiring": map[string]any{"open": 3.0}}, ""},
	} {
		g := writeProject(t, map[string]string{
			"feed.prose.md": contract("feed", "gateway", "", "- `items`: order lines"),
			"sum.prose.md":  contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total` (number): their sum\n\n#### hiring\n\nOpen roles."),
		})
		checkSum(t, g, fixed{"sum": tc.truth}, tc.truth, tc.want)
	}
}

// A truth that is text says what the text is, and a program's log line
// before its JSON is named as such.
func TestTextTruthIsQuoted(t *testing.T) {
	g := writeProject(t, map[string]string{
		"feed.prose.md": contract("feed", "gateway", "", "- `items`: order lines"),
		"sum.prose.md":  contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total` (number): their sum"),
	})
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := fixed{"sum": "summing...\n{\"total\": 3}"}
	o := reconcile.Options{Graph: g, Store: st, Events: map[string][]any{"feed": {map[string]any{"items": []any{}}}},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}
	if _, err := reconcile.Drain(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Receipts("sum")
	if err != nil || len(rs) != 1 {
		t.Fatalf("receipts of sum: %v %d", err, len(rs))
	}
	want := `its truth must be a JSON object, got a string ("summing...\n{\"total\": 3}"); a line of text comes before a JSON object (a program writes its logs to stderr`
	if rs[0].Status != receipt.Failed || !strings.Contains(rs[0].Reason, want) {
		t.Errorf("receipt %s %q, want failed with %q", rs[0].Status, rs[0].Reason, want)
	}
}

type rendererFunc func(context.Context, *reconcile.Request) (*reconcile.Answer, error)

func (f rendererFunc) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	return f(ctx, req)
}

// A value a producer that declares no type gives for an input its
// subscriber declares of a type fails the subscriber's render before it
// starts, naming the item's line and the producer; a value of that type
// renders it.
func TestInputOfAnotherTypeFailsTheSubscriber(t *testing.T) {
	for _, tc := range []struct {
		total any
		want  string
	}{
		{"130 EUR", `alert.prose.md:10:4: input total of alert is "130 EUR", from sum, but it declares it (number)`},
		{nil, `alert.prose.md:10:4: input total of alert is null, from sum, but it declares it (number): declare it (number, optional) to take null, or make the producer maintain a number`},
		{130.0, ""},
	} {
		g := writeProject(t, map[string]string{
			"feed.prose.md":  contract("feed", "gateway", "", "- `items`: order lines"),
			"sum.prose.md":   contract("sum", "responsibility", "- `items`: the lines of `feed`", "- `total`: their sum"),
			"alert.prose.md": contract("alert", "responsibility", "- `total` (number): the total of `sum`", "- `big` (boolean): over 100"),
		})
		st, err := store.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		rendered := false
		r := fixed{"sum": map[string]any{"total": tc.total}, "alert": map[string]any{"big": true}}
		o := reconcile.Options{Graph: g, Store: st, Events: map[string][]any{"feed": {map[string]any{"items": []any{}}}},
			Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
				return rendererFunc(func(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
					rendered = rendered || req.Node.Name == "alert"
					return r.Render(ctx, req)
				}), nil
			}}
		if _, err := reconcile.Drain(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		rs, err := st.Receipts("alert")
		if err != nil || len(rs) != 1 {
			t.Fatalf("receipts of alert: %v %d", err, len(rs))
		}
		switch {
		case tc.want == "" && (rs[0].Status != receipt.Rendered || !rendered):
			t.Errorf("total %v: alert %s (%s), rendered %v", tc.total, rs[0].Status, rs[0].Reason, rendered)
		case tc.want != "" && (rs[0].Status != receipt.Failed || !strings.Contains(rs[0].Reason, tc.want) || rendered):
			t.Errorf("total %v: alert %s %q (its renderer ran: %v), want failed with %q before it runs", tc.total, rs[0].Status, rs[0].Reason, rendered, tc.want)
		}
	}
}

// The wiring file's immaterial fields apply to a node keyed by its name
// as well as by its id.
func TestWiringImmaterialByName(t *testing.T) {
	g := writeProject(t, map[string]string{
		"feed.prose.md":     strings.Replace(contract("feed", "gateway", "", "- `items`: n\n- `stamp`: when"), "kind:", "id: 067NC4KG01RG50R40M30E20918\nkind:", 1),
		"prose.wiring.yaml": "immaterial:\n  feed: [stamp]\n",
	})
	if got := reconcile.Immaterial(g, g.Node("067NC4KG01RG50R40M30E20918"), graph.Atomic); len(got) != 1 || got[0] != "stamp" {
		t.Errorf("immaterial %v, want [stamp]", got)
	}
}

// checkSum drains g once, feed given an event of no items and each node
// answering as r says, and checks sum's one receipt: rendered when want
// is "", else failed with a reason holding want.
func checkSum(t *testing.T, g *graph.Graph, r fixed, truth any, want string) {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := reconcile.Options{Graph: g, Store: st, Events: map[string][]any{"feed": {map[string]any{"items": []any{}}}},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}
	if _, err := reconcile.Drain(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Receipts("sum")
	if err != nil || len(rs) != 1 {
		t.Fatalf("receipts of sum: %v %d", err, len(rs))
	}
	switch {
	case want == "" && rs[0].Status != receipt.Rendered:
		t.Errorf("%v: receipt %s %q, want rendered", truth, rs[0].Status, rs[0].Reason)
	case want != "" && (rs[0].Status != receipt.Failed || !strings.Contains(rs[0].Reason, want)):
		t.Errorf("%v: receipt %s %q, want failed with %q", truth, rs[0].Status, rs[0].Reason, want)
	}
}
