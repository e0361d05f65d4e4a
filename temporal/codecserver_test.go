package temporal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
)

const testOrigin = "http://localhost:8233"

// codecServerWorld is a codec server on a fresh key, and payloads sealed
// with that key.
func codecServerWorld(t *testing.T) (srv *httptest.Server, sealed []byte, keyFile string) {
	t.Helper()
	keyFile = filepath.Join(t.TempDir(), "temporal.key")
	key, err := loadKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newCodec(key, keyFile)
	enc, err := c.Encode([]*commonpb.Payload{{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")}, Data: []byte(`{"task_brief":"ship 1.2"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	sealed, err = protojson.Marshal(&commonpb.Payloads{Payloads: enc})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewCodecHandler(CodecServerOptions{KeyFile: keyFile, Token: "s3cret-token", AllowOrigin: testOrigin})
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, sealed, keyFile
}

func post(t *testing.T, url string, body []byte, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The codec server decrypts for a caller with the token (the scheme in
// any case), and for no one else; the Temporal UI's origin gets CORS
// headers and its preflight answered, another origin nothing.
func TestCodecServerDecryptsForTheTokenHolder(t *testing.T) {
	srv, sealed, _ := codecServerWorld(t)
	if bytes.Contains(sealed, []byte("ship 1.2")) {
		t.Fatal("the sealed payload shows its text")
	}
	for _, auth := range []string{"Bearer s3cret-token", "bearer s3cret-token"} {
		resp, body := post(t, srv.URL+"/decode", sealed, map[string]string{"Authorization": auth, "Origin": testOrigin, "X-Namespace": "default"})
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", auth, resp.StatusCode, body)
		}
		var out commonpb.Payloads
		if err := protojson.Unmarshal([]byte(body), &out); err != nil || len(out.Payloads) != 1 || string(out.Payloads[0].Data) != `{"task_brief":"ship 1.2"}` {
			t.Fatalf("%s: decoded %s (%v)", auth, body, err)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != testOrigin {
			t.Errorf("Access-Control-Allow-Origin %q, want %q", got, testOrigin)
		}
	}
	for name, h := range map[string]map[string]string{
		"no token":     {},
		"wrong token":  {"Authorization": "Bearer nope"},
		"other scheme": {"Authorization": "Basic czNjcmV0LXRva2Vu"},
	} {
		if resp, body := post(t, srv.URL+"/decode", sealed, h); resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "ship") {
			t.Errorf("%s: %d %s, want 401", name, resp.StatusCode, body)
		}
	}
	if resp, body := post(t, srv.URL+"/decode", sealed, map[string]string{"Authorization": "Bearer s3cret-token", "Origin": "http://evil.example"}); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin: %d %s %v, want 403 without CORS headers", resp.StatusCode, body, resp.Header)
	}
	pre, _ := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	pre.Header.Set("Origin", testOrigin)
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-namespace")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != testOrigin ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// /encode seals again, for what the UI sends.
	plain, _ := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{{Data: []byte(`"x"`)}}})
	if resp, body := post(t, srv.URL+"/encode", plain, map[string]string{"Authorization": "Bearer s3cret-token"}); resp.StatusCode != 200 || !strings.Contains(body, base64.StdEncoding.EncodeToString([]byte(encodingEncrypted))) {
		t.Errorf("encode: %d %s", resp.StatusCode, body)
	}
}

// A codec server with another key decrypts nothing, and says which key
// it holds.
func TestCodecServerWithAnotherKeyReadsNothing(t *testing.T) {
	_, sealed, _ := codecServerWorld(t)
	other, _, _ := codecServerWorld(t)
	resp, body := post(t, other.URL+"/decode", sealed, map[string]string{"Authorization": "Bearer s3cret-token"})
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(body, "ship") || !strings.Contains(body, "another key") {
		t.Errorf("another key: %d %s, want 400 naming the key", resp.StatusCode, body)
	}
}

// There is no codec server without a token, without the key file (it
// makes none), or with an origin a browser never sends.
func TestCodecServerRefusals(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "temporal.key")
	for _, tc := range []struct {
		o    CodecServerOptions
		says string
	}{
		{CodecServerOptions{KeyFile: missing}, "bearer token"},
		{CodecServerOptions{KeyFile: missing, Token: "t"}, "no payload key at " + missing},
		{CodecServerOptions{KeyFile: missing, Token: "t", AllowOrigin: "localhost:8233"}, "scheme://host"},
		{CodecServerOptions{KeyFile: missing, Token: "t", AllowOrigin: "http://localhost:8233/"}, "scheme://host"},
	} {
		if _, err := NewCodecHandler(tc.o); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v, want it to say %q", tc.o, err, tc.says)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the codec server made a key")
	}
}

// Any body the codec server reads gets an answer, never a crash.
func FuzzCodecServer(f *testing.F) {
	f.Add([]byte(`{"payloads":[{"metadata":{"encoding":"YmluYXJ5L3Byb3NlLWFlczI1NmdjbQ=="},"data":"AAAA"}]}`))
	f.Add([]byte(`{"payloads":[]}`))
	f.Add([]byte(`not json`))
	keyFile := filepath.Join(f.TempDir(), "temporal.key")
	if _, err := loadKey(keyFile); err != nil {
		f.Fatal(err)
	}
	h, err := NewCodecHandler(CodecServerOptions{KeyFile: keyFile, Token: "t"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, path := range []string{"/decode", "/encode"} {
			req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer t")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 && rec.Code != 400 {
				t.Fatalf("%s: status %d", path, rec.Code)
			}
			if rec.Code == 200 && !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s: not JSON: %q", path, rec.Body.String())
			}
		}
	})
}
