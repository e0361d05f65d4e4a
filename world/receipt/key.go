package receipt

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"strings"
)

// Fingerprint names a public key: "sha256:" and the hex sha256 of its 32
// bytes. A state directory records its signer's fingerprint.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// KeyFingerprint is the fingerprint of r's public key ("" when r is
// unsigned or its key is malformed).
func (r *Receipt) KeyFingerprint() string {
	pub, err := hex.DecodeString(r.Key)
	if r.Key == "" || err != nil || len(pub) != ed25519.PublicKeySize {
		return ""
	}
	return Fingerprint(pub)
}

// ParsePublicKey reads the key receipts are trusted to be signed by (a
// --trusted-key file): a PEM "PUBLIC KEY" (PKIX), a PEM PKCS #8 private
// key (its public half), or the 32-byte public key in hex, as a signed
// receipt's "key" member holds it.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	if blk, _ := pem.Decode(b); blk != nil {
		var k any
		var err error
		switch blk.Type {
		case "PUBLIC KEY":
			k, err = x509.ParsePKIXPublicKey(blk.Bytes)
		case "PRIVATE KEY":
			k, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
		default:
			return nil, errors.New("a PEM " + blk.Type + ", not a PUBLIC KEY or a PRIVATE KEY")
		}
		if err != nil {
			return nil, err
		}
		switch k := k.(type) {
		case ed25519.PublicKey:
			return k, nil
		case ed25519.PrivateKey:
			return k.Public().(ed25519.PublicKey), nil
		}
		return nil, errors.New("not an ed25519 key")
	}
	pub, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, errors.New("want a PEM ed25519 PUBLIC KEY (or PRIVATE KEY), or the 64-digit hex public key a signed receipt's \"key\" holds")
	}
	return pub, nil
}
