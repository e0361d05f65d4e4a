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

// A postcondition about a field that a faceted node gives inside one of
// its facets is checked there: it was never checked, and a truth that
// broke it was published with exit 0.
func TestPostconditionOfAFieldInsideAFacet(t *testing.T) {
	for _, tc := range []struct {
		name   string
		total  float64
		status receipt.Status
	}{
		{"broken", -3, receipt.Failed},
		{"kept", 3, receipt.Rendered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := writeProject(t, map[string]string{
				"sum.prose.md": contract("sum", "responsibility", "",
					"- `total` (number): the sum\n- postcondition: `total` is at least 0\n\n#### structured\n\nThe summary."),
			})
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			r := fixed{"sum": map[string]any{"structured": map[string]any{"total": tc.total}}}
			if _, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
				Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}); err != nil {
				t.Fatal(err)
			}
			rs, err := st.Receipts("sum")
			if err != nil || len(rs) != 1 {
				t.Fatalf("receipts of sum: %v %d", err, len(rs))
			}
			if rs[0].Status != tc.status {
				t.Fatalf("sum %s (%s), want %s", rs[0].Status, rs[0].Reason, tc.status)
			}
			if tc.status == receipt.Failed && !strings.Contains(rs[0].Reason, "postcondition does not hold: `total` is at least 0") {
				t.Errorf("reason %q", rs[0].Reason)
			}
		})
	}
}

// A truth that is no JSON object fails the render naming the node's
// ### Maintains and the fields it declares.
func TestTruthNotAnObject(t *testing.T) {
	g := writeProject(t, map[string]string{
		"sum.prose.md": contract("sum", "responsibility", "", "- `total` (number): the sum\n- `count`: how many"),
	})
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := fixed{"sum": []any{1.0, 2.0}}
	if _, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Receipts("sum")
	if err != nil || len(rs) != 1 {
		t.Fatalf("receipts of sum: %v %d", err, len(rs))
	}
	want := "sum.prose.md:8:1: its truth must be a JSON object, got a list: answer one object of the fields its ### Maintains declares (total, count)"
	if rs[0].Status != receipt.Failed || !strings.Contains(rs[0].Reason, want) {
		t.Errorf("receipt %s %q, want failed with %q", rs[0].Status, rs[0].Reason, want)
	}
}
