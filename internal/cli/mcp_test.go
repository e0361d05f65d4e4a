package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/mcpserve"
)

// mcpWorld is what an MCP client test runs against: the repository root
// (the README's ratchet and its services), a run directory, and a gate
// that holds the ratchet's certifier until the test opens it, so the test
// can see a run that has not ended without depending on timing.
type mcpWorld struct {
	root, runDir, gate, certifier string
	progress                      chan *mcp.ProgressNotificationParams
}

func newMCPWorld(t *testing.T) *mcpWorld {
	root := testenv.MustRoot(t)
	dir := t.TempDir()
	w := &mcpWorld{root: root, runDir: filepath.Join(dir, "runs"), gate: filepath.Join(dir, "open"),
		certifier: filepath.Join(dir, "gated-certifier.sh"), progress: make(chan *mcp.ProgressNotificationParams, 64)}
	script := "#!/bin/sh\nwhile [ ! -e '" + w.gate + "' ]; do sleep 0.01; done\nexec '" + filepath.Join(root, "testdata", "run", "certifier.sh") + "'\n"
	if err := os.WriteFile(w.certifier, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *mcpWorld) client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			w.progress <- r.Params
		}})
}

// readmeValue is the value the README says the ratchet returns: the first
// json block after "It prints the returned value".
func readmeValue(t *testing.T, root string) any {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "It prints the returned value")
	m := regexp.MustCompile("(?s)```json\n(.*?)```").FindStringSubmatch(rest)
	if !ok || m == nil {
		t.Fatal("README: no ratchet value")
	}
	var v any
	if err := json.Unmarshal([]byte(m[1]), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// call calls a tool and decodes its structured result into out; a tool
// error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", params.Name, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured result %s: %v", params.Name, b, err)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mcpScenario is the must-hold sequence: tools/list, lint of a spec with
// an error, a bad run refused as a tool error, the README's ratchet run
// (its id back before it ends, progress per call, result = the README's
// value), and a replay of it.
func mcpScenario(t *testing.T, w *mcpWorld, cs *mcp.ClientSession) {
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tl.Name)
		}
	}
	for _, want := range []string{"lint", "show", "graph", "run", "result", "resume", "replay", "runs", "world", "receipts"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list %v: no %s", names, want)
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.prose.md")
	src := "---\nname: bad\nkind: pattern\n---\n\n# Bad\n\nCalls a slot it never declares.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nlet x = call critic\nreturn x\n```\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var lint mcpserve.LintOutput
	call(t, cs, &mcp.CallToolParams{Name: "lint", Arguments: map[string]any{"paths": []string{bad}}}, &lint)
	i := slices.IndexFunc(lint.Findings, func(f mcpserve.Finding) bool { return f.Severity == "error" })
	if i < 0 || !lint.Errors {
		t.Fatalf("lint findings %+v: want an error", lint.Findings)
	}
	if f := lint.Findings[i]; f.File != bad || f.Line != 17 || f.Col == 0 || f.Code == "" || !strings.Contains(f.Message, "critic") {
		t.Errorf("finding %+v: want %s:17 naming critic", f, bad)
	}

	// A run prose refuses is a tool error naming the place, and the
	// server goes on.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"file": bad, "slots": map[string]any{"worker": "exec:true"}}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "bad.prose.md:17:") {
		t.Fatalf("run of an invalid spec: %v %v %q: want a tool error at bad.prose.md:17", err, res != nil && res.IsError, text(res))
	}

	var started mcpserve.RunOutput
	params := &mcp.CallToolParams{Name: "run", Arguments: map[string]any{
		"file":   "std/patterns/ratchet.prose.md",
		"slots":  map[string]any{"advancer": "exec:testdata/run/advancer.sh", "certifier": "exec:" + w.certifier},
		"inputs": map[string]any{"task_brief": "ship release 1.2"},
	}}
	params.SetProgressToken("ratchet-1")
	call(t, cs, params, &started)
	if started.RunID == "" {
		t.Fatal("run: no run_id")
	}
	// The certifier waits for the gate: the run cannot have ended.
	var out mcpserve.Outcome
	call(t, cs, &mcp.CallToolParams{Name: "result", Arguments: map[string]any{"run_id": started.RunID, "wait_seconds": 0}}, &out)
	if out.Status != "running" {
		t.Fatalf("result before the certifier answered: %+v, want running", out)
	}
	if err := os.WriteFile(w.gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Progress comes only under the token of a request that waits for
	// the run: these result calls, never the run call that has returned.
	tokens := map[any]bool{}
	for i := 0; out.Status == "running"; i++ {
		params := &mcp.CallToolParams{Name: "result", Arguments: map[string]any{"run_id": started.RunID, "wait_seconds": 30}}
		tok := fmt.Sprintf("wait-%d", i)
		params.SetProgressToken(tok)
		tokens[tok] = true
		call(t, cs, params, &out)
	}
	var notes []*mcp.ProgressNotificationParams
	for len(notes) < 9 { // the certifier's 5 calls and the advancer's last 4 at least
		select {
		case p := <-w.progress:
			notes = append(notes, p)
		case <-time.After(time.Minute):
			t.Fatalf("progress %d notifications, want 9 at least", len(notes))
		}
	}
	for i, p := range notes {
		if !tokens[p.ProgressToken] {
			t.Errorf("progress %+v under a token no waiting request carried", p)
		}
		if i > 0 && p.Progress <= notes[i-1].Progress {
			t.Errorf("progress %v after %v: want it to increase", p.Progress, notes[i-1].Progress)
		}
	}
	want := readmeValue(t, w.root)
	if out.Status != "ok" || !jsonEqual(out.Value, want) {
		t.Fatalf("result %+v, want ok with the README's value %v", out, want)
	}

	var replayed mcpserve.Outcome
	call(t, cs, &mcp.CallToolParams{Name: "replay", Arguments: map[string]any{"run_id": started.RunID}}, &replayed)
	if replayed.Status != "ok" || !jsonEqual(replayed.Value, want) {
		t.Errorf("replay %+v, want the run's value", replayed)
	}
	var runs mcpserve.RunsOutput
	call(t, cs, &mcp.CallToolParams{Name: "runs"}, &runs)
	if len(runs.Runs) != 1 || runs.Runs[0].RunID != started.RunID || runs.Runs[0].Status != "ok" || runs.Runs[0].Calls != 10 {
		t.Errorf("runs %+v: want the one ratchet run, ok, 10 calls", runs.Runs)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// The MCP tools through the SDK's client, in process.
func TestMCPInProcess(t *testing.T) {
	w := newMCPWorld(t)
	srv := mcpserve.New(mcpserve.Options{RunDir: w.runDir, Dir: w.root})
	defer srv.Close()
	t.Chdir(w.root)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := w.client().Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcpScenario(t, w, cs)
}

// The same over stdio, against the built binary as an agent host starts it.
func TestMCPStdioBinary(t *testing.T) {
	w := newMCPWorld(t)
	bin := buildProse(t, t.TempDir())
	cmd := exec.Command(bin, "mcp", "--run-dir", w.runDir)
	cmd.Dir = w.root
	cs, err := w.client().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcpScenario(t, w, cs)
}

// --http off loopback without --token-file is refused (exit 2); a bare
// port binds loopback.
func TestMCPHTTPNeedsATokenOffLoopback(t *testing.T) {
	code, _, stderr := runMain(t, "mcp", "--http", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(stderr, "--token-file") {
		t.Errorf("exit %d, stderr %s: want 2 naming --token-file", code, stderr)
	}
	for in, want := range map[string]string{":7413": "127.0.0.1:7413", "7413": "127.0.0.1:7413", "[::1]:80": "[::1]:80"} {
		if got, err := mcpAddr(in); err != nil || got != want || !loopback(got) {
			t.Errorf("mcpAddr(%q) = %q, %v; want %q on loopback", in, got, err, want)
		}
	}
	if loopback("0.0.0.0:1") || loopback("192.0.2.1:1") {
		t.Error("a public address taken for loopback")
	}
}

type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Over streamable HTTP with a token: a client that sends it lists the
// tools and lints; one that does not is turned away.
func TestMCPHTTPBearerToken(t *testing.T) {
	w := newMCPWorld(t)
	srv := mcpserve.New(mcpserve.Options{RunDir: w.runDir, Dir: w.root})
	defer srv.Close()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil)
	hs := httptest.NewServer(bearer("s3cret-token", h))
	defer hs.Close()
	ctx := context.Background()

	if _, err := w.client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil); err == nil {
		t.Fatal("a client without the token connected")
	}
	cs, err := w.client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: tokenTransport{"s3cret-token"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var lint mcpserve.LintOutput
	call(t, cs, &mcp.CallToolParams{Name: "lint", Arguments: map[string]any{"paths": []string{filepath.Join(w.root, "std", "patterns", "ratchet.prose.md")}}}, &lint)
	if lint.Files != 1 || lint.Errors {
		t.Errorf("lint of the ratchet over HTTP: %+v", lint)
	}
}

// Over HTTP without a token, a run that binds a slot to exec: is refused
// with a tool error naming --token-file and --allow-exec, and nothing
// runs; other calls pass; with --allow-exec the run starts.
func TestMCPHTTPRefusesExecWithoutToken(t *testing.T) {
	w := newMCPWorld(t)
	srv := mcpserve.New(mcpserve.Options{RunDir: w.runDir, Dir: w.root})
	defer srv.Close()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil)
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "ran")
	runArgs := map[string]any{
		"file":   "std/patterns/ratchet.prose.md",
		"slots":  map[string]any{"advancer": "exec:touch " + marker, "certifier": []any{"exec:true"}},
		"inputs": map[string]any{"task_brief": "x"},
	}
	for _, allow := range []bool{false, true} {
		hs := httptest.NewServer(bearer("", refuseExec(!allow, h)))
		cs, err := w.client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var lint mcpserve.LintOutput
		call(t, cs, &mcp.CallToolParams{Name: "lint", Arguments: map[string]any{"paths": []string{filepath.Join(w.root, "std", "patterns", "ratchet.prose.md")}}}, &lint)
		if lint.Files != 1 {
			t.Errorf("allow %v: lint over HTTP: %+v", allow, lint)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: runArgs})
		if err != nil {
			t.Fatalf("allow %v: run: %v", allow, err)
		}
		if !allow && (!res.IsError || !strings.Contains(text(res), "--token-file") || !strings.Contains(text(res), "--allow-exec")) {
			t.Errorf("run with exec: slots over HTTP without a token: error %v, %q", res.IsError, text(res))
		}
		if allow && res.IsError {
			t.Errorf("run with --allow-exec refused: %q", text(res))
		}
		cs.Close()
		hs.Close()
		if _, err := os.Stat(marker); !allow && err == nil {
			t.Error("the refused run's program ran")
		}
	}
	if code, _, stderr := runMain(t, "mcp", "--allow-exec"); code != exitUsage || !strings.Contains(stderr, "--http") {
		t.Errorf("--allow-exec over stdio: exit %d, %s", code, stderr)
	}
}
