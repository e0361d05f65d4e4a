package serve

import (
	"os"
	"testing"
	"time"

	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// A freshness wake is due at the valid_until of the truth the ledger
// vouches for: a truth.json edited to put it off does not.
func TestFreshnessFromTheVouchedTruth(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Extend(nil); err != nil {
		t.Fatal(err)
	}
	lapse := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	truth := map[string]any{"valid_until": lapse.Format(time.RFC3339)}
	v, err := st.PutVersion("n", truth)
	if err != nil {
		t.Fatal(err)
	}
	r := &receipt.Receipt{Node: "n", Drain: 1, Seq: 1, Status: receipt.Rendered, Version: v, Wake: receipt.Wake{Source: receipt.Boot, Refs: []string{}}}
	if err := r.Seal(nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Append("n", r); err != nil {
		t.Fatal(err)
	}
	if err := st.Publish("n", truth, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.TruthPath("n"), []byte(`{"valid_until":"2099-01-01T00:00:00Z"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fired := time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)
	due, ok := Due(st, "n", &cadence.Plan{Freshness: true}, fired, time.Time{}, fired)
	if !ok || !due.Equal(lapse) {
		t.Fatalf("due %v %v with truth.json edited; want %v, the valid_until of the version the ledger names", due, ok, lapse)
	}
}
