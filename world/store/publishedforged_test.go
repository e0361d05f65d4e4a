package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// TestPublishedIdentityForgedIsNotBelieved: a published file edited by
// hand, and the index entry's record of its identity edited to the
// file's new one with the checksum recomputed, is still compared with
// the last receipt's version: the drain's repair refuses it as edited,
// rather than take it for the version the ledger vouches for.
func TestPublishedIdentityForgedIsNotBelieved(t *testing.T) {
	for _, file := range []string{"truth.json", "facets/f.json"} {
		t.Run(file, func(t *testing.T) {
			s, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Extend(nil); err != nil {
				t.Fatal(err)
			}
			truth, _ := canon.Decode([]byte(`{"f": 1, "g": "a"}`))
			v, _ := s.PutVersion("n", truth)
			r := &receipt.Receipt{Node: "n", Drain: 1, Seq: 1, Status: receipt.Rendered, Version: v}
			r.Seal(nil)
			if _, err := s.Standing("n"); err != nil {
				t.Fatal(err)
			}
			if err := s.Append("n", r); err != nil {
				t.Fatal(err)
			}
			if err := s.Publish("n", truth, []string{"f"}); err != nil {
				t.Fatal(err)
			}
			if err := s.SaveIndex(); err != nil {
				t.Fatal(err)
			}
			p := s.TruthPath("n")
			edit := []byte(`{"f": 7, "g": "a"}` + "\n")
			if file != "truth.json" {
				p, edit = s.FacetPath("n", "f"), []byte("7\n")
			}
			if err := os.WriteFile(p, edit, 0o600); err != nil {
				t.Fatal(err)
			}
			now, err := json.Marshal(statID(p))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(s.IndexPath())
			if err != nil {
				t.Fatal(err)
			}
			forged := resum(t, b, func(body []byte) []byte {
				var e map[string]json.RawMessage
				if err := json.Unmarshal(body, &e); err != nil {
					t.Fatal(err)
				}
				var pub map[string]json.RawMessage
				if err := json.Unmarshal(e["published"], &pub); err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(pub[file], now) {
					t.Fatal("the edit did not move the file's identity")
				}
				pub[file] = now
				e["published"], _ = json.Marshal(pub)
				out, _ := json.Marshal(e)
				return out
			})
			if err := os.WriteFile(s.IndexPath(), forged, 0o600); err != nil {
				t.Fatal(err)
			}
			fresh, err := Open(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.Extend(nil); err != nil {
				t.Fatal(err)
			}
			fixed, err := fresh.Repair("n", []string{"f"})
			var damage *DamageError
			if !errors.As(err, &damage) || damage.Problems[0].File != p {
				t.Fatalf("repair after %s was edited and its identity forged in the index: %v, %v; want it refused as edited", file, fixed, err)
			}
		})
	}
}
