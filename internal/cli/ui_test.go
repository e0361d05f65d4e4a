package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/proselang/prose/internal/browsertest"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// TestUIAnswerAndResumeLikeCLI: two runs of one spec wait at the same
// gates; one is answered and resumed with prose answer and prose resume,
// the other from the page in Chromium, with the same answers: both end
// with the same result, and the page shows it.
func TestUIAnswerAndResumeLikeCLI(t *testing.T) {
	root := testenv.MustRoot(t)
	spec, err := os.ReadFile(filepath.Join(root, "testdata/gates/release.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range map[string]string{"release.prose.md": string(spec), "ship.sh": "cat\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		if code, _, stderr := runMain(t, "run", "release.prose.md", "--slot", "shipper=exec:sh ship.sh", "--run-dir", "runs", "--quiet"); code != 3 {
			t.Fatalf("run: exit %d, want 3 (waiting at a gate):\n%s", code, stderr)
		}
	}
	runs, err := journal.List("runs")
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %v, %v", runs, err)
	}
	cliID, pageID := runs[0].ID, runs[1].ID

	// The CLI.
	for _, args := range [][]string{
		{"answer", cliID, "--value", "v1.2", "--run-dir", "runs"},
		{"resume", cliID, "--run-dir", "runs", "--quiet"},
		{"answer", cliID, "L20", "--value", "ship", "--run-dir", "runs"},
	} {
		if code, _, stderr := runMain(t, args...); code != 0 && !(args[0] == "resume" && code == 3) {
			t.Fatalf("prose %s: exit %d:\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	code, cliOut, stderr := runMain(t, "resume", cliID, "--run-dir", "runs", "--quiet")
	if code != 0 {
		t.Fatalf("the CLI's last resume: exit %d:\n%s", code, stderr)
	}

	// The page.
	srv, err := newUIServer(&uiOptions{path: ".", runDir: "runs", poll: 20e6}, "")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() { srv.Close(); ts.CloseClientConnections(); ts.Close() }()
	tab := browsertest.New(t)
	tab.Do(chromedp.Navigate(ts.URL + "/ui/runs/" + pageID))
	tab.WaitFor(`document.querySelector('form.gate[data-gate="L19"] input[name=value]') !== null`)
	// The page follows the run live and may replace what it shows at any
	// moment: each step finds and uses its elements in one evaluation.
	tab.Fill(map[string]string{`form.gate[data-gate="L19"] input[name=value]`: "v1.2"}, `form.gate[data-gate="L19"] button[type=submit]`)
	tab.WaitFor(`document.querySelector(".notice") && document.querySelector(".notice").textContent.includes("answered") && document.querySelector("#resume button")`)
	tab.Click("#resume button")
	tab.WaitFor(`document.querySelector('form.gate[data-gate="L20"] input[value=ship]') !== null`)
	tab.Click(`form.gate[data-gate="L20"] input[value=ship]`, `form.gate[data-gate="L20"] button[type=submit]`)
	tab.WaitFor(`document.querySelector(".notice") && document.querySelector(".notice").textContent.includes("L20") && document.querySelector("#resume button")`)
	tab.Click("#resume button")
	tab.WaitFor(`document.getElementById("result") !== null`)
	shown := browsertest.Eval[string](tab, `document.getElementById("result").textContent`)

	l, err := journal.ReadFile(filepath.Join("runs", pageID, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	fin := l.Final()
	if fin == nil || fin.Status != journal.StatusOK {
		t.Fatalf("the run resumed from the page ended %+v, want ok", fin)
	}
	want := canonJSON(t, cliOut)
	if got := canonJSON(t, string(fin.Result)); got != want {
		t.Errorf("the page's run ended with %s; the CLI's with %s", got, want)
	}
	if got := canonJSON(t, shown); got != want {
		t.Errorf("the page shows the result %s; the CLI printed %s", got, want)
	}
	// the answers were journaled as prose answer journals them
	var answers []string
	for _, r := range l.Records {
		if r.Type == journal.TypeAnswer && r.Gate != nil {
			answers = append(answers, r.ID.Key()+"="+string(r.Gate.Value))
		}
	}
	if strings.Join(answers, " ") != `L19="v1.2" L20={"choice":"ship"}` {
		t.Errorf("the page journaled the answers %v", answers)
	}
}

// canonJSON is JSON text with its keys sorted and no spaces.
func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestUIRefusesOffLoopbackWithoutToken: prose ui refuses an address other
// machines can reach unless it has a token, as prose serve does.
func TestUIRefusesOffLoopbackWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		code, _, stderr := runMain(t, "ui", t.TempDir(), "--addr", addr)
		if code != 2 || !strings.Contains(stderr, "--token-file") {
			t.Errorf("prose ui --addr %s: exit %d, want 2 naming --token-file:\n%s", addr, code, stderr)
		}
	}
}

// TestServeMountsUI: prose serve's handler serves the page at /ui behind
// serve's token (a bearer header, or the cookie ?token= sets), and its own
// endpoints as before.
func TestServeMountsUI(t *testing.T) {
	root := testenv.MustRoot(t)
	g, diags, err := graph.Load(filepath.Join(root, "serve", "testdata", "continuity"))
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := serve.New(serve.Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const token = "s3cret-token-of-serve"
	h, closeUI, err := uiHandler(httpapi.Handler(b, httpapi.Options{Token: token}), g, b, token)
	if err != nil {
		t.Fatal(err)
	}
	defer closeUI()
	ts := httptest.NewServer(h)
	defer ts.Close()
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	do := func(path, bearer string) int {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for path, want := range map[string]int{"/ui/": 401, "/ui/serve": 401, "/ui": 401, "/status": 401, "/health": 200, "/ui/?token=wrong": 401, "/ui/?token=" + token: 303} {
		if got := do(path, ""); got != want {
			t.Errorf("GET %s without the token: %d, want %d", path, got, want)
		}
	}
	for _, path := range []string{"/ui/", "/ui/serve", "/status"} {
		if got := do(path, token); got != 200 {
			t.Errorf("GET %s with the token: %d, want 200", path, got)
		}
	}
}
