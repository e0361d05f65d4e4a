package lint_test

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/lint"
)

// corpus015 is the OpenProse 0.15 corpus beside the repository; the test
// skips when it is absent (fails under CI).
func corpus015(t *testing.T) string {
	t.Helper()
	return testenv.Corpus015(t, "")
}

// Every finding prose lint reports on the 0.15 corpus is a real defect of
// its file, listed here with why; anything else is a false finding.
var corpus015Defects = map[string]string{
	// Config defaults written as Python literals: not YAML, not JSON.
	"patterns/assumption-miner.prose.md:30:3 spec/python-default": "{'model': 'opus'} is a Python literal",
	"patterns/blind-review.prose.md:30:3 spec/python-default":     "{'model': 'opus'} is a Python literal",
	// output_dir is declared and no line of the Delegation reads it.
	"patterns/blind-review.prose.md:31:4 check/unused-config": "output_dir is never used",
	// Config and the inputs block type the same key differently.
	"patterns/contrastive-probe.prose.md:54:5 spec/type-mismatch":    "string in Config, object in inputs",
	"patterns/contrastive-probe.prose.md:55:5 spec/type-mismatch":    "string in Config, object in inputs",
	"patterns/dialectic.prose.md:52:5 spec/type-mismatch":            "integer vs number",
	"patterns/ensemble-synthesizer.prose.md:48:5 spec/type-mismatch": "integer vs number",
	"patterns/oversight.prose.md:58:5 spec/type-mismatch":            "integer vs number",
	"patterns/ratchet.prose.md:53:5 spec/type-mismatch":              "integer vs number",
	"patterns/refine.prose.md:40:5 spec/type-mismatch":               "integer vs number",
	"patterns/retry-with-learning.prose.md:44:5 spec/type-mismatch":  "integer vs number",
	"patterns/worker-critic.prose.md:54:5 spec/type-mismatch":        "integer vs number",
	// A let of a name bound before it, inside a loop: an assignment meant.
	"patterns/dialectic.prose.md:71:7 check/redeclared":     "re-let of last_thesis",
	"patterns/dialectic.prose.md:76:7 check/redeclared":     "re-let of last_antithesis",
	"patterns/oversight.prose.md:79:7 check/redeclared":     "re-let of last_outcome",
	"patterns/pipeline.prose.md:57:7 check/redeclared":      "re-let of current_input",
	"patterns/refine.prose.md:67:7 check/redeclared":        "re-let of current_result",
	"patterns/worker-critic.prose.md:75:7 check/redeclared": "re-let of last_result",
	// A string describing a value where a computed value is meant.
	"patterns/fallback-chain.prose.md:72:17 check/placeholder-string": "attempts is a description",
	"patterns/race.prose.md:82:17 check/placeholder-string":           "attempts is a description",
	// fan-out passes task_brief, which it never declares.
	"patterns/fan-out.prose.md:58:21 check/undefined-name": "task_brief is undeclared",
}

func TestCorpus015Lint(t *testing.T) {
	dir := corpus015(t)
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".prose.md") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 39 {
		t.Fatalf("found %d spec files in %s, want the 39 of the corpus", len(files), dir)
	}
	onPath(t, "jq") // declared-tools declares cli:jq: the findings must not depend on the machine
	res, err := lint.Paths([]string{dir}, lint.Options{})
	if err != nil {
		t.Fatalf("every file loads: %v", err)
	}
	if res.Files != len(files) {
		t.Errorf("linted %d files, want %d", res.Files, len(files))
	}
	got := map[string]bool{}
	for _, d := range res.Diags {
		rel, _ := filepath.Rel(dir, d.File)
		key := filepath.ToSlash(rel) + ":" + strconv.Itoa(d.Line) + ":" + strconv.Itoa(d.Col) + " " + d.Code
		got[key] = true
		if _, ok := corpus015Defects[key]; !ok {
			t.Errorf("false finding: %s", d)
		}
	}
	var missing []string
	for k := range corpus015Defects {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		t.Errorf("real defect not reported: %s (%s)", k, corpus015Defects[k])
	}
}

// onPath puts programs named names (that exit 0) first on PATH for the
// test, so that a cli: tool check finds them on every machine.
func onPath(t *testing.T, names ...string) {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}
