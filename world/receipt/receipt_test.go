package receipt

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/proselang/prose/world/canon"
)

func sealed(t *testing.T, node, prev string, key ed25519.PrivateKey) *Receipt {
	t.Helper()
	r := &Receipt{Node: node, Drain: 1, Seq: 1, Status: Rendered, Prev: prev, Facets: map[string]string{"@atomic": "sha256:x"}}
	if err := r.Seal(key); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestChainDetectsEditsTearsAndForgedSignatures(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	a := sealed(t, "n", "", key)
	b := sealed(t, "n", a.Hash, key)
	if i, err := Chain([]*Receipt{a, b}, key.Public().(ed25519.PublicKey)); i != -1 || err != nil {
		t.Fatalf("a good chain: %d %v", i, err)
	}
	edited := *b
	edited.Status = Skipped
	if i, err := Chain([]*Receipt{a, &edited}, nil); i != 1 || !strings.Contains(err.Error(), "does not match its hash") {
		t.Errorf("edited: %d %v", i, err)
	}
	if i, err := Chain([]*Receipt{b}, nil); i != 0 || !strings.Contains(err.Error(), "chain is torn") {
		t.Errorf("torn: %d %v", i, err)
	}
	_, other, _ := ed25519.GenerateKey(nil)
	resealed := *b
	resealed.Status = Failed
	resealed.Seal(other)
	if i, err := Chain([]*Receipt{a, &resealed}, key.Public().(ed25519.PublicKey)); i != 1 || !strings.Contains(err.Error(), "another key") {
		t.Errorf("resealed with another key: %d %v", i, err)
	}
	badSig := *b
	badSig.Sig = a.Sig
	if _, err := Chain([]*Receipt{a, &badSig}, nil); err == nil || !strings.Contains(err.Error(), "signature does not verify") {
		t.Errorf("swapped signature: %v", err)
	}
}

func TestParseRefusesANewerMajor(t *testing.T) {
	r := sealed(t, "n", "", nil)
	line, _ := r.Marshal()
	if _, err := Parse(line); err != nil {
		t.Fatal(err)
	}
	cur := `"format":"` + Format + `"`
	if !strings.Contains(string(line), cur) {
		t.Fatalf("no %s in %s", cur, line)
	}
	newer := strings.Replace(string(line), cur, `"format":"2.0"`, 1)
	if _, err := Parse([]byte(newer)); err == nil || !strings.Contains(err.Error(), "newer than this prose reads") {
		t.Errorf("format 2.0: %v", err)
	}
	minor := strings.Replace(string(line), cur, `"format":"1.7"`, 1)
	if _, err := Parse([]byte(minor)); err != nil {
		t.Errorf("format 1.7: %v", err)
	}
}

// A render's duration is measured, not content: it moves neither the hash
// nor the ledger line. A 1.0 receipt's hash covers it, and still checks.
func TestDurationIsOutsideTheHash(t *testing.T) {
	a := &Receipt{Node: "n", Status: Rendered, Cost: Cost{Programs: 1, DurationMS: 3}}
	b := &Receipt{Node: "n", Status: Rendered, Cost: Cost{Programs: 1, DurationMS: 900}}
	a.Seal(nil)
	b.Seal(nil)
	la, _ := a.Marshal()
	lb, _ := b.Marshal()
	if a.Hash != b.Hash || string(la) != string(lb) || strings.Contains(string(la), "duration") {
		t.Errorf("durations moved the receipt:\n%s\n%s", la, lb)
	}
	old := `{"format":"1.0","node":"n","drain":1,"seq":1,"contract":"","wake":{"source":"boot","refs":[]},"inputs":{},"memo":"","facets":{},"version":"","diff":{"moved":[],"fields":[]},"prev":"","status":"rendered","cost":{"requests":0,"tokens_in":0,"tokens_out":0,"programs":1,"duration_ms":%d},"hash":""}`
	for _, ms := range []int{0, 7} {
		r, err := Parse([]byte(fmt.Sprintf(old, ms)))
		if err != nil {
			t.Fatal(err)
		}
		c := r.content()
		c.Hash = ""
		raw, _ := json.Marshal(c)
		v, _ := canon.Decode(raw)
		m := v.(map[string]any)
		delete(m, "hash")
		m["cost"].(map[string]any)["duration_ms"] = json.Number(fmt.Sprint(ms))
		body, _ := canon.Marshal(m)
		r.Hash = canon.Hash(body)
		if err := r.Check(nil); err != nil {
			t.Errorf("1.0 receipt with duration_ms %d: %v", ms, err)
		}
		r.Cost.DurationMS++
		if err := r.Check(nil); err == nil {
			t.Errorf("1.0 receipt: an edited duration_ms checks")
		}
	}
}
