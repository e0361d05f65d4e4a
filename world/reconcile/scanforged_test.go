package reconcile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// scripted renders the chain's gateway as {"v": the event's id} and every
// other node as {"v": its inputs}, failing the nodes fail names.
type scripted struct{ fail map[string]bool }

func (s scripted) Render(_ context.Context, rq *reconcile.Request) (*reconcile.Answer, error) {
	if s.fail[rq.Node.ID] {
		return nil, errors.New("down")
	}
	if len(rq.Events) > 0 {
		return &reconcile.Answer{Truth: map[string]any{"v": rq.Events[len(rq.Events)-1].(map[string]any)["id"]}}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"v": fmt.Sprint(rq.Inputs)}}, nil
}

// indexEntries is the last entry of each node in the index file at p, as
// JSON objects.
func indexEntries(t *testing.T, p string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e map[string]any
		d := json.NewDecoder(bytes.NewReader(line[9:]))
		d.UseNumber() // times in ns do not fit a float64
		if err := d.Decode(&e); err != nil {
			t.Fatal(err)
		}
		out[e["node"].(string)] = e
	}
	return out
}

// appendEntry appends e to the index at p with its checksum: an edit by
// someone who knows the format (the last line of a node wins).
func appendEntry(t *testing.T, p string, e map[string]any) {
	t.Helper()
	body, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%08x %s\n", crc32.ChecksumIEEE(body), body); err != nil {
		t.Fatal(err)
	}
}

// scriptedChain writes a chain of 3 nodes rendered by scripted and
// returns its state directory and a drain of it, from a store opened
// anew: the event (none when "") goes to the gateway n00000, and the
// nodes named fail. With rebind a failing node is bound otherwise (its
// contract moves), so that bound back it stands on its last non-failed
// receipt again.
func scriptedChain(t *testing.T, rebind bool) (string, func(event string, fail ...string) *reconcile.Result) {
	t.Helper()
	dir := t.TempDir()
	if err := testenv.WriteChain(dir, 3); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	stateDir := filepath.Join(dir, ".prose", "world")
	return stateDir, func(event string, fail ...string) *reconcile.Result {
		t.Helper()
		st, err := store.Open(stateDir)
		if err != nil {
			t.Fatal(err)
		}
		r := scripted{fail: map[string]bool{}}
		for _, f := range fail {
			r.fail[f] = true
		}
		o := reconcile.Options{Graph: g, Store: st,
			Binding: func(n *graph.Node) string {
				if rebind && r.fail[n.ID] {
					return "failing"
				}
				return "scripted"
			},
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil },
		}
		if event != "" {
			o.Events = map[string][]any{"n00000": {map[string]any{"id": event}}}
		}
		res, err := reconcile.Drain(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
}

// TestScanRecordForgedIsNotBelieved: the index's stale-scan record of a
// node, edited with its checksum recomputed to say that the node's key
// was derived from the versions its producers publish now, does not keep
// the node from rendering when what it reads moved since its last
// receipt: a drain derives its key again, and renders it.
func TestScanRecordForgedIsNotBelieved(t *testing.T) {
	stateDir, drain := scriptedChain(t, false)
	if res := drain("a"); res.Rendered != 3 {
		t.Fatalf("first drain rendered %d of 3", res.Rendered)
	}
	st, err := store.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	settledScan := indexEntries(t, st.IndexPath())["n00001"]["scan"].(map[string]any)
	// The gateway moves; n00001 fails, so it has no scan record and the
	// next drain retries it.
	if res := drain("b", "n00001"); res.Rendered != 1 || res.Failed != 1 {
		t.Fatalf("second drain: %d rendered, %d failed; want 1 each", res.Rendered, res.Failed)
	}
	e := indexEntries(t, st.IndexPath())["n00001"]
	if e["scan"] != nil {
		t.Fatalf("a failed render left a scan record: %v", e["scan"])
	}
	gw := indexEntries(t, st.IndexPath())["n00000"]["last"].(map[string]any)["version"].(string)
	forged := map[string]any{}
	for k, v := range settledScan {
		forged[k] = v
	}
	forged["last"] = e["last"].(map[string]any)["hash"]
	forged["inputs"] = map[string]any{"n00000": gw}
	e["scan"] = forged
	appendEntry(t, st.IndexPath(), e)

	res := drain("")
	if got := rendered(res); len(got) == 0 || got[0] != "n00001" {
		t.Fatalf("after the scan record was forged, the drain rendered %v; want n00001 rendered from the gateway's new truth", got)
	}
	b, err := os.ReadFile(st.TruthPath("n00001"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("v:b")) {
		t.Fatalf("n00001 publishes %s; want it rendered from the gateway's v b", b)
	}
}

// TestScanRecordForgedContract: a scan record edited to hold the
// fingerprint of a contract edited since the node's last receipt does
// not keep the node from rendering under its new contract.
func TestScanRecordForgedContract(t *testing.T) {
	dir := t.TempDir()
	if err := testenv.WriteChain(dir, 2); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(dir, ".prose", "world")
	drain := func(event string) *reconcile.Result {
		t.Helper()
		g, diags, err := graph.Load(dir)
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		st, err := store.Open(stateDir)
		if err != nil {
			t.Fatal(err)
		}
		o := reconcile.Options{Graph: g, Store: st,
			Binding:  func(*graph.Node) string { return "scripted" },
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return scripted{}, nil },
		}
		if event != "" {
			o.Events = map[string][]any{"n00000": {map[string]any{"id": event}}}
		}
		res, err := reconcile.Drain(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := drain("a"); res.Rendered != 2 {
		t.Fatalf("first drain rendered %d of 2", res.Rendered)
	}
	spec := filepath.Join(dir, "n00001.prose.md")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, bytes.Replace(b, []byte("the truth before"), []byte("the value before"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	c, err := reconcile.Contract(g.Node("n00001"), "scripted")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	e := indexEntries(t, st.IndexPath())["n00001"]
	sc := e["scan"].(map[string]any)
	if sc["contract"] == c {
		t.Fatal("the edit did not move the contract")
	}
	sc["contract"] = c
	appendEntry(t, st.IndexPath(), e)
	if got := rendered(drain("")); len(got) != 1 || got[0] != "n00001" {
		t.Fatalf("after its contract moved and the scan record was forged to it, the drain rendered %v; want n00001", got)
	}
}

// TestIndexForgedToAnOlderRender: a node whose last receipts failed, its
// index entry forged (checksum recomputed) to name as its last non-failed
// receipt an older one, whose key is the one the node derives now, is not
// kept from rendering: its gateway publishes again what that older
// receipt read, not what its last non-failed one read, and the store does
// not believe the entry (its failed tail does not chain back to that
// receipt), so the node renders, and its subscriber after it. Believed,
// the entry would have left both publishing what they derived from the
// gateway's truth before, with exit 0.
func TestIndexForgedToAnOlderRender(t *testing.T) {
	// A node failing is bound otherwise (its contract moves), so that
	// once bound back it stands on its last non-failed receipt again.
	stateDir, drain := scriptedChain(t, true)
	if res := drain("a"); res.Rendered != 3 {
		t.Fatalf("first drain rendered %d of 3", res.Rendered)
	}
	if res := drain("b"); res.Rendered != 3 {
		t.Fatalf("second drain rendered %d of 3", res.Rendered)
	}
	// The gateway publishes a again; the others fail, twice.
	if res := drain("a", "n00001", "n00002"); res.Rendered != 1 || res.Failed != 2 {
		t.Fatalf("third drain: %d rendered, %d failed; want 1 and 2", res.Rendered, res.Failed)
	}
	if res := drain("", "n00001", "n00002"); res.Failed != 2 {
		t.Fatalf("fourth drain: %d failed, want 2", res.Failed)
	}
	st, err := store.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := st.Ledger("n00001")
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := os.ReadFile(st.LedgerPath("n00001"))
	if err != nil {
		t.Fatal(err)
	}
	e := indexEntries(t, st.IndexPath())["n00001"]
	first, _ := json.Marshal(rs[0])
	var older map[string]any
	if err := json.Unmarshal(first, &older); err != nil {
		t.Fatal(err)
	}
	e["last_ok"] = older
	e["ok_end"] = bytes.IndexByte(ledger, '\n') + 1
	appendEntry(t, st.IndexPath(), e)

	if got := rendered(drain("")); len(got) != 2 || got[0] != "n00001" || got[1] != "n00002" {
		t.Fatalf("after n00001's entry was forged to name its first render, the drain rendered %v; want n00001 and n00002 rendered from the gateway's a", got)
	}
}
