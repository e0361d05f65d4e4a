//go:build temporal

package cli

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// prose temporal codec-server refuses to start without a token or
// without the key file (exit 2), and never makes a key.
func TestCodecServerRefusesWithoutTokenOrKey(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "temporal.key")
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("op-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--key-file", key}, "--token-file"},
		{[]string{"--key-file", key, "--token-file", token}, "no payload key at " + key},
		{[]string{"--key-file", key, "--token-file", filepath.Join(dir, "none")}, "--token-file"},
	} {
		code, _, stderr := runMain(t, append([]string{"temporal", "codec-server", "--listen", "127.0.0.1:0"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 saying %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(key); err == nil {
		t.Error("codec-server made a key")
	}
}

// The built command serves the codec protocol to a caller with its
// token, and to no one else.
func TestCodecServerServesWithItsToken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the prose binary")
	}
	dir := t.TempDir()
	bin := buildProse(t, dir)
	key, token := filepath.Join(dir, "temporal.key"), filepath.Join(dir, "token")
	if err := os.WriteFile(key, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(token, []byte("op-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "temporal", "codec-server", "--listen", "127.0.0.1:0", "--token-file", token, "--key-file", key)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`at (http://\S+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("no address on stderr: %q %v", line, err)
	}
	body := `{"payloads":[{"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":"InNoaXAi"}]}`
	for _, c := range []struct {
		auth string
		want int
	}{{"Bearer op-token", 200}, {"", 401}, {"Bearer other", 401}} {
		req, _ := http.NewRequest(http.MethodPost, m[1]+"/decode", strings.NewReader(body))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Authorization %q: %d, want %d", c.auth, resp.StatusCode, c.want)
		}
	}
}
