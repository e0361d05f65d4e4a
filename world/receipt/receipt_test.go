package receipt

import (
	"crypto/ed25519"
	"strings"
	"testing"
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
	newer := strings.Replace(string(line), `"format":"1.0"`, `"format":"2.0"`, 1)
	if _, err := Parse([]byte(newer)); err == nil || !strings.Contains(err.Error(), "newer than this prose reads") {
		t.Errorf("format 2.0: %v", err)
	}
	minor := strings.Replace(string(line), `"format":"1.0"`, `"format":"1.7"`, 1)
	if _, err := Parse([]byte(minor)); err != nil {
		t.Errorf("format 1.7: %v", err)
	}
}
