package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// tsClient is where the official TypeScript MCP SDK of the pinned
// version (testdata/mcp-ts/sdk-version) is installed, as .ci/run installs
// it: $PROSE_MCP_TS_DIR, or the user cache's prose/mcp-ts/VERSION. Without
// node or the SDK the test skips, and fails under CI.
func tsClient(t *testing.T) (node, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mcp-ts", "sdk-version"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(b))
	dir = os.Getenv("PROSE_MCP_TS_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "prose", "mcp-ts", version)
	}
	skip := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set: .ci/run installs it)", why)
		}
		t.Skipf("%s: npm install --prefix %s @modelcontextprotocol/sdk@%s (as .ci/run does) to run it", why, dir, version)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		skip("no node on PATH")
	}
	pkg, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil {
		skip("the TypeScript MCP SDK is not installed in " + dir)
	}
	var p struct{ Version string }
	if json.Unmarshal(pkg, &p) != nil || p.Version != version {
		skip("the TypeScript MCP SDK in " + dir + " is " + p.Version + ", not " + version)
	}
	return node, dir
}

// The official TypeScript SDK client drives prose mcp over stdio and
// streamable HTTP (testdata/mcp-ts/client.mjs): every progress
// notification of a run call is sent before its response (the SDK's
// onprogress may miss those read together with the response), one
// result call answers a run's two gates through elicitations, lint and
// test take paths as a list of strings, and lint takes paths ["x"] as the
// MCP Inspector sends it.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds prose and runs node")
	}
	node, sdk := tsClient(t)
	root := testenv.MustRoot(t)
	tmp := t.TempDir()
	bin := buildProse(t, tmp)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp-ts", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PROSE_BIN="+bin, "PROSE_ROOT="+root, "PROSE_RUN_DIR="+filepath.Join(tmp, "runs"), "MCP_TS_SDK="+sdk)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nPASS\n") {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
}
