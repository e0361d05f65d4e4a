package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/spec"
)

// smokeDir is the 0.15 smoke fixtures beside the repository; the test
// skips when they are absent (fails under CI).
func smokeDir(t *testing.T) string {
	t.Helper()
	dir := testenv.Corpus015(t, "smoke")
	return dir
}

type smokeCase struct {
	ID              string            `json:"id"`
	Command         string            `json:"command"`
	Source          string            `json:"source"`
	Inputs          map[string]string `json:"inputs"`
	ExpectedOutputs []string          `json:"expectedOutputs"`
}

// smokeRenders is how many renders each run case makes: one model
// request each (the judgment of 09's critic verdict is decided from its
// structured reply, without a model).
var smokeRenders = map[string]int{
	"single-service": 1, "caller-input": 1, "auto-wiring": 2, "inline-services": 2,
	"explicit-wiring": 3, "execution-block": 2, "errors-strategies": 1, "local-pattern": 2,
}

func smokeCases(t *testing.T, dir string) []smokeCase {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Cases []smokeCase }
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var out []smokeCase
	for _, c := range m.Cases {
		if c.Command == "run" {
			out = append(out, c)
		}
	}
	if len(out) != len(smokeRenders) {
		t.Fatalf("manifest has %d run cases, the test knows %d", len(out), len(smokeRenders))
	}
	return out
}

// answer is the fake model's reply for node n (llmtest.RenderAnswer).
func answer(n *spec.Spec) map[string]any {
	outs := make([]llmtest.Output, len(n.Outputs))
	for i, o := range n.Outputs {
		outs[i] = llmtest.Output{Name: o.Name, Description: o.Description}
	}
	return llmtest.RenderAnswer(n.Name, outs)
}

// renderNodes are the file node and its inline nodes that declare outputs.
func renderNodes(t *testing.T, path string) []*spec.Spec {
	sp, diags, err := spec.Load(path)
	if err != nil || diags.HasErrors() {
		t.Fatalf("%s: %v %v", path, err, diags)
	}
	return append([]*spec.Spec{sp}, sp.Nodes...)
}

func smokeMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func smokeArgs(dir string, c smokeCase) []string {
	args := []string{"run", filepath.Join(dir, c.Source), "--no-journal", "--quiet"}
	keys := make([]string, 0, len(c.Inputs))
	for k := range c.Inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--input", k+"="+c.Inputs[k])
	}
	return args
}

// checkOutputs asserts that stdout is exactly one JSON object keyed by
// the expected outputs, each holding its fixture's exact phrase.
func checkOutputs(t *testing.T, c smokeCase, stdout string) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := append([]string(nil), c.ExpectedOutputs...)
	sort.Strings(want)
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("outputs %v, want exactly %v", keys, want)
	}
	if !strings.Contains(stdout, "-smoke-pass") {
		t.Errorf("no output carries the fixture's pass phrase:\n%s", stdout)
	}
}

func TestSmokeRunsWithModel(t *testing.T) {
	dir := smokeDir(t)
	for _, c := range smokeCases(t, dir) {
		t.Run(c.ID, func(t *testing.T) {
			var replies []llmtest.Reply
			for _, n := range renderNodes(t, filepath.Join(dir, c.Source)) {
				raw, _ := json.Marshal(answer(n))
				replies = append(replies, llmtest.Reply{Content: string(raw), Times: -1,
					Match: `carry out the ` + string(n.Kind) + ` \"` + n.Name + `\"`})
			}
			srv := llmtest.NewServer(t, replies...)
			t.Setenv("OPENAI_BASE_URL", srv.URL)
			t.Setenv("OPENAI_API_KEY", "sk-test")
			t.Setenv("PROSE_MODEL", "test-model")
			code, stdout, stderr := smokeMain(t, smokeArgs(dir, c)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			checkOutputs(t, c, stdout)
			if got := srv.Count(); got != smokeRenders[c.ID] {
				t.Errorf("%d model requests, want one per render: %d", got, smokeRenders[c.ID])
			}
			for _, r := range srv.Requests() {
				if f := r.ResponseFormat(); f == nil || f["type"] != "json_schema" {
					t.Errorf("a render asked without a JSON schema: %v", f)
				}
			}
		})
	}
}

func TestSmokeRunsWithPrograms(t *testing.T) {
	dir := smokeDir(t)
	t.Setenv("PROSE_MODEL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	for _, c := range smokeCases(t, dir) {
		t.Run(c.ID, func(t *testing.T) {
			// Without bindings, the run is refused before it starts, naming
			// the nodes that need a model and the bindings that serve them.
			code, _, stderr := smokeMain(t, smokeArgs(dir, c)...)
			if code != 2 || !strings.Contains(stderr, "no model is configured") {
				t.Fatalf("unbound run: exit %d, want 2 naming the nodes:\n%s", code, stderr)
			}
			named := map[string]bool{}
			for _, m := range regexp.MustCompile(`--slot (\S+)=exec:COMMAND`).FindAllStringSubmatch(stderr, -1) {
				named[m[1]] = true
			}
			if len(named) != smokeRenders[c.ID] {
				t.Errorf("the refusal names %d nodes, want the %d renders: %v", len(named), smokeRenders[c.ID], named)
			}
			tmp := t.TempDir()
			args := smokeArgs(dir, c)
			for _, n := range renderNodes(t, filepath.Join(dir, c.Source)) {
				if !named[n.Name] {
					continue
				}
				raw, _ := json.Marshal(answer(n))
				file := filepath.Join(tmp, n.Name+".json")
				if err := os.WriteFile(file, raw, 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--slot", n.Name+"=exec:cat "+file)
			}
			code, stdout, stderr := smokeMain(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			checkOutputs(t, c, stdout)
		})
	}
}
