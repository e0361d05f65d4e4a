package receipt

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"testing"
)

// A trusted key reads from a PEM public key, a PEM private key (its
// public half) or the hex a receipt's "key" holds; anything else is an
// error that says what is wanted. Fingerprints tell keys apart.
func TestParsePublicKey(t *testing.T) {
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))
	pub := k.Public().(ed25519.PublicKey)
	pkix, _ := x509.MarshalPKIXPublicKey(pub)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(k)
	for name, in := range map[string][]byte{
		"pem public":  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}),
		"pem private": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"hex":         []byte(hex.EncodeToString(pub) + "\n"),
	} {
		got, err := ParsePublicKey(in)
		if err != nil || !got.Equal(pub) {
			t.Errorf("%s: %x %v", name, got, err)
		}
	}
	for name, in := range map[string]string{
		"short hex": "abcd",
		"a cert":    string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})),
	} {
		if _, err := ParsePublicKey([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	r := &Receipt{Node: "n"}
	r.Seal(k)
	if r.KeyFingerprint() != Fingerprint(pub) || !strings.HasPrefix(Fingerprint(pub), "sha256:") {
		t.Errorf("fingerprint %q, want %q", r.KeyFingerprint(), Fingerprint(pub))
	}
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{4}, 32))
	if Fingerprint(other.Public().(ed25519.PublicKey)) == Fingerprint(pub) {
		t.Error("two keys, one fingerprint")
	}
}
