package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// commit writes a rendered receipt of node review with truth, as a
// drain commits it.
func commit(t *testing.T, st *store.Store, truth any) *receipt.Receipt {
	t.Helper()
	last, err := st.Last("review")
	if err != nil {
		t.Fatal(err)
	}
	v, err := st.PutVersion("review", truth)
	if err != nil {
		t.Fatal(err)
	}
	r := &receipt.Receipt{Node: "review", Drain: 1, Seq: 1, Contract: "sha256:00", Wake: receipt.Wake{Source: receipt.Boot, Refs: []string{}},
		Inputs: map[string]string{}, Memo: "sha256:01", Version: v, Status: receipt.Rendered}
	if last != nil {
		r.Drain, r.Prev = last.Drain+1, last.Hash
	}
	if err := r.Seal(nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Append("review", r); err != nil {
		t.Fatal(err)
	}
	if err := st.Publish("review", truth, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

// The API answers what the ledgers vouch for: a ledger resealed by hand
// (its last receipt pointed at an older truth, its hash recomputed, its
// head record left) is answered 500 naming the ledger, on /receipts,
// /nodes/ID and /status, never served as the node's standing; a
// published truth.json edited by hand is not what /nodes/ID answers.
func TestForgedLedgerIsNotServed(t *testing.T) {
	s := continuityServer(t)
	st := s.Store()
	if err := st.Extend(nil); err != nil {
		t.Fatal(err)
	}
	first := commit(t, st, map[string]any{"verdict": "old"})
	second := commit(t, st, map[string]any{"verdict": "new"})
	get := func(path string) (int, string) {
		t.Helper()
		w := httptest.NewRecorder()
		Handler(s, Options{}).ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Code, w.Body.String()
	}
	for _, path := range []string{"/receipts?node=review", "/nodes/review", "/status"} {
		if code, body := get(path); code != 200 {
			t.Fatalf("%s of a sound store: %d %s", path, code, body)
		}
	}
	if err := os.WriteFile(st.TruthPath("review"), []byte(`{"verdict": "forged"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, body := get("/nodes/review"); code != 200 || !strings.Contains(body, `"new"`) {
		t.Errorf("/nodes/review with truth.json edited: %d %s; want the truth the last receipt names", code, body)
	}

	forged := *second
	forged.Version, forged.Hash = first.Version, ""
	if err := forged.Seal(nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(st.LedgerPath("review"))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := second.Marshal()
	fl, _ := forged.Marshal()
	if !bytes.Contains(b, line) {
		t.Fatalf("the ledger does not hold the receipt as Marshal writes it")
	}
	if err := os.WriteFile(st.LedgerPath("review"), bytes.Replace(b, line, fl, 1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/receipts", "/receipts?node=review", "/nodes/review", "/status"} {
		code, body := get(path)
		var m map[string]any
		json.Unmarshal([]byte(body), &m)
		msg, _ := m["error"].(string)
		if code != 500 || !strings.Contains(msg, st.LedgerPath("review")) || !strings.Contains(msg, "damaged") {
			t.Errorf("%s of a forged ledger: %d %s; want 500 naming the ledger", path, code, body)
		}
		if strings.Contains(body, forged.Hash) || strings.Contains(body, `"old"`) {
			t.Errorf("%s serves the forged receipt: %s", path, body)
		}
	}
}
