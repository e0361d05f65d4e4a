package std_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"

	"github.com/proselang/prose/internal/testenv"
)

// The upstream corpus, run end to end: every one of its 19 patterns with
// small program services (testdata/std/svc.sh and inline sh), and the
// scripted model server where a condition has no deterministic answer.
// Each case checks what the pattern's Ensures promises, as its own
// pseudocode computes it (upstream placeholders included).

// corpusDir is ../shared/corpus/openprose-0.11/patterns beside the module
// root; the test skips when it is absent.
func corpusDir(t *testing.T) string { return testenv.Corpus(t) }

// modelJudge is the judge `prose run` builds from OPENAI_BASE_URL and
// PROSE_MODEL, talking to a scripted server.
func modelJudge(t *testing.T, replies ...llmtest.Reply) (delegation.Judge, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return llm.NewModelJudge(c, llm.JudgeOptions{}), srv
}

// corpusCase is one corpus run: its bindings (built from the harness) and
// the checks of its result.
type corpusCase struct {
	name  string // file name without .prose.md
	label string // subtest name when a file has several cases
	setup func(h *harness) run
	// model, when set, scripts the judge's model.
	model []llmtest.Reply
	check func(t *testing.T, h *harness, res map[string]any, srv *llmtest.Server)
}

// shScript writes an sh program into the test's scratch dir and returns
// its exec binding.
func (h *harness) shScript(name, body string) string {
	h.t.Helper()
	p := filepath.Join(filepath.Dir(h.log), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return "exec:LOG=" + shq(h.log) + " sh " + shq(p)
}

func TestCorpusRunsEndToEnd(t *testing.T) {
	dir := corpusDir(t)
	seen := map[string]bool{}
	for _, c := range corpusCases {
		seen[c.name] = true
		t.Run(c.name+c.label, func(t *testing.T) {
			h := newHarness(t)
			r := c.setup(h)
			r.pattern = filepath.Join(dir, c.name+".prose.md")
			var srv *llmtest.Server
			if c.model != nil {
				r.judge, srv = modelJudge(t, c.model...)
			}
			res := h.mustRun(r)
			c.check(t, h, res, srv)
		})
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.prose.md"))
	for _, e := range entries {
		n := strings.TrimSuffix(filepath.Base(e), ".prose.md")
		if !seen[n] && n != "fan-out" {
			t.Errorf("corpus pattern %s has no end-to-end case", n)
		}
	}
}

// TestCorpusFanOutIsRefusedBeforeRunning: the upstream fan-out reads
// task_brief, which it never declares. The checker refuses it with the
// position of the use before any service runs; std/fan-out declares it.
func TestCorpusFanOutIsRefusedBeforeRunning(t *testing.T) {
	dir := corpusDir(t)
	h := newHarness(t)
	_, err := h.run(run{pattern: filepath.Join(dir, "fan-out.prose.md"),
		slots:  []string{"delegates=" + h.svcBinding("d1", `"a"`), "delegates=" + h.svcBinding("d2", `"b"`)},
		inputs: []string{`briefs=["x","y"]`},
	})
	if err == nil || !strings.Contains(err.Error(), "fan-out.prose.md:") || !strings.Contains(err.Error(), "undefined name 'task_brief'") {
		t.Fatalf("err = %v, want the undefined task_brief with its position", err)
	}
	if n := len(h.calls()); n != 0 {
		t.Errorf("%d services ran before the spec was refused", n)
	}
	res := h.mustRun(run{pattern: "fan-out",
		slots:  []string{"delegates=" + h.svcBinding("d1", "append:brief"), "delegates=" + h.svcBinding("d2", "append:brief")},
		inputs: []string{`briefs=["x","y"]`, "task_brief=shared"},
	})
	wantJSON(t, "std fan-out results", res["results"], `["x|d1","y|d2"]`)
}
