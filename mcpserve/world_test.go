package mcpserve

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// digestRender renders the digest fixture in process: signals folds its
// events' headline in, digest briefs it at a counted cost of one request.
type digestRender struct{}

func (digestRender) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	switch req.Node.ID {
	case "signals":
		head := "nothing yet"
		for _, e := range req.Events {
			if m, ok := e.(map[string]any); ok {
				head, _ = m["headline"].(string)
			}
		}
		return &reconcile.Answer{Truth: map[string]any{"headline": head, "received": "0"}}, nil
	case "digest":
		return &reconcile.Answer{Truth: map[string]any{"brief": "digest: " + req.Inputs["headline"].(string)},
			Cost: receipt.Cost{Requests: 1, TokensIn: 7, TokensOut: 3}}, nil
	}
	return nil, nil
}

// drainDigest copies the digest fixture into a project directory and
// drains it once per event, as prose run DIR --event signals=@EVENT does.
func drainDigest(t *testing.T, headlines ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"digest.prose.md", "signals.prose.md"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "world", "digest", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatalf("graph: %v %s", err, diags)
	}
	st, err := store.Open(filepath.Join(dir, ".prose", "world"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headlines {
		_, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
			Events:   map[string][]any{"signals": {map[string]any{"headline": h}}},
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return digestRender{}, nil }})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// toolWorld is a server whose directory is dir, and a client of it.
func toolWorld(t *testing.T, dir string) *hostWorld {
	return connectHost(t, dir, nil)
}

// world shows a drained node's published truth, a facet, and an older
// version a receipt names; an unknown node is a tool error that names
// the node meant.
func TestWorldTool(t *testing.T) {
	dir := drainDigest(t, "rain", "sun")
	w := toolWorld(t, dir)
	var out WorldOutput
	if e := w.tool(t, "world", WorldInput{Path: ".", Node: "digest"}, &out); e != "" {
		t.Fatalf("world: %s", e)
	}
	if m, _ := out.Truth.(map[string]any); m["brief"] != "digest: sun" {
		t.Errorf("world digest = %+v, want the brief of the last event", out)
	}
	var rs ReceiptsOutput
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir, Node: "digest"}, &rs); e != "" {
		t.Fatalf("receipts: %s", e)
	}
	if len(rs.Receipts) != 2 || out.Version != rs.Receipts[1].Version {
		t.Fatalf("digest receipts %+v; world's version %s, want the last receipt's", rs.Receipts, out.Version)
	}
	var old WorldOutput
	if e := w.tool(t, "world", WorldInput{Path: dir, Node: "digest", Facet: "brief", Version: rs.Receipts[0].Version}, &old); e != "" {
		t.Fatalf("world version: %s", e)
	}
	if old.Truth != "digest: rain" {
		t.Errorf("world digest@%s brief = %v, want the first drain's", rs.Receipts[0].Version, old.Truth)
	}
	if e := w.tool(t, "world", WorldInput{Path: dir, Node: "digset"}, nil); !strings.Contains(e, "did you mean digest?") {
		t.Errorf("world of an unknown node: %q, want a tool error with did-you-mean", e)
	}
	if e := w.tool(t, "world", WorldInput{Path: dir, Node: "digest", Facet: "nope"}, nil); !strings.Contains(e, "members: brief") {
		t.Errorf("world of an unknown facet: %q, want the members named", e)
	}
	if e := w.tool(t, "world", WorldInput{Path: t.TempDir(), Node: "digest"}, nil); !strings.Contains(e, "no .prose/world") {
		t.Errorf("world without a state: %q, want it said", e)
	}
}

// receipts lists in ledger order, verifies, names a tampered truth file,
// and sums cost by node and wake source.
func TestReceiptsTool(t *testing.T) {
	dir := drainDigest(t, "rain", "sun")
	w := toolWorld(t, dir)
	var list ReceiptsOutput
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir}, &list); e != "" {
		t.Fatalf("receipts: %s", e)
	}
	var order []string
	for _, r := range list.Receipts {
		order = append(order, r.Node)
		if r.Hash == "" || r.Status != receipt.Rendered {
			t.Errorf("receipt %+v: want a sealed rendered receipt", r)
		}
	}
	if got := strings.Join(order, " "); got != "signals digest signals digest" || list.Count != 4 {
		t.Fatalf("receipts in order %q (count %d), want each drain's signals then digest", got, list.Count)
	}
	var ok ReceiptsOutput
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir, Verify: true}, &ok); e != "" {
		t.Fatalf("receipts verify: %s", e)
	}
	if ok.Verify == nil || !ok.Verify.OK || len(ok.Verify.Problems) != 0 || ok.Receipts != nil {
		t.Fatalf("verify of an untouched state = %+v, want ok alone", ok)
	}
	st, _ := store.Open(filepath.Join(dir, ".prose", "world"))
	if err := os.WriteFile(st.TruthPath("digest"), []byte(`{"brief": "digest: forged"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var bad ReceiptsOutput
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir, Verify: true}, &bad); e != "" {
		t.Fatalf("receipts verify: %s", e)
	}
	if bad.Verify == nil || bad.Verify.OK || len(bad.Verify.Problems) == 0 || bad.Verify.Problems[0].File != st.TruthPath("digest") {
		t.Fatalf("verify after editing digest's truth = %+v, want the problem naming %s", bad.Verify, st.TruthPath("digest"))
	}
	// A ledger edited in place: verify names it; the receipts and their
	// cost are refused rather than read from it.
	ledger, err := os.ReadFile(st.LedgerPath("digest"))
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(ledger, []byte(`"tokens_in":7`), []byte(`"tokens_in":1`), 1)
	if bytes.Equal(edited, ledger) {
		t.Fatalf("no receipt of 7 tokens in to edit:\n%s", ledger)
	}
	if err := os.WriteFile(st.LedgerPath("digest"), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	var cut ReceiptsOutput
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir, Verify: true}, &cut); e != "" {
		t.Fatalf("receipts verify of an edited ledger: %s", e)
	}
	if cut.Verify == nil || cut.Verify.OK || cut.Verify.Problems[0].File != st.LedgerPath("digest") {
		t.Fatalf("verify after editing digest's ledger = %+v, want the problem naming %s", cut.Verify, st.LedgerPath("digest"))
	}
	for _, in := range []ReceiptsInput{{Path: dir}, {Path: dir, Cost: true}} {
		if e := w.tool(t, "receipts", in, &ReceiptsOutput{}); !strings.Contains(e, st.LedgerPath("digest")) {
			t.Errorf("receipts %+v of an edited ledger: %q, want refused naming it", in, e)
		}
	}
	if err := os.WriteFile(st.LedgerPath("digest"), ledger, 0o600); err != nil {
		t.Fatal(err)
	}
	var cost ReceiptsOutput
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir, Cost: true}, &cost); e != "" {
		t.Fatalf("receipts cost: %s", e)
	}
	if cost.Cost == nil || len(cost.Cost.ByNode) != 2 {
		t.Fatalf("cost = %+v, want a row per node", cost.Cost)
	}
	d := cost.Cost.ByNode[0]
	if d.Key != "digest" || d.Rendered != 2 || d.Requests != 2 || d.TokensIn != 14 || d.TokensOut != 6 || cost.Cost.ByNode[1].Requests != 0 {
		t.Errorf("cost by node %+v, want digest's two renders of one request each", cost.Cost.ByNode)
	}
	wakes := 0
	for _, r := range cost.Cost.ByWake {
		wakes += r.Rendered + r.Skipped + r.Failed
	}
	if wakes != 4 || len(cost.Cost.ByWake) == 0 {
		t.Errorf("cost by wake %+v, want the four receipts by source", cost.Cost.ByWake)
	}
	if e := w.tool(t, "receipts", ReceiptsInput{Path: dir, Node: "signal"}, nil); !strings.Contains(e, "did you mean signals?") {
		t.Errorf("receipts of an unknown node: %q, want did-you-mean", e)
	}
}
