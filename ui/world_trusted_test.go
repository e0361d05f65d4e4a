package ui

import (
	"crypto/ed25519"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// With a trusted key (prose ui --trusted-key), the world pages refuse an
// unsigned store's receipts where, without one, they verify.
func TestWorldPagesTrustedKey(t *testing.T) {
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	if page := f.get("/ui/world/node/sum", 200); strings.Contains(page, "verification fails") {
		t.Fatalf("an unsigned store fails verification without a trusted key:\n%s", page)
	}
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Options{RunDir: filepath.Join(f.dir, ".prose", "runs"), StateDir: f.state, Graph: f.g, Trusted: pub})
	res, err := http.Get(ts.URL + "/ui/world/node/sum")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(b), "verification fails") {
		t.Fatalf("with a trusted key, an unsigned receipt is not refused (%d):\n%s", res.StatusCode, b)
	}
}
