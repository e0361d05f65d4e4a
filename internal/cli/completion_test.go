package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// complete runs cobra's hidden __complete command and returns the
// offered words (descriptions dropped) and the directive line.
func complete(t *testing.T, args ...string) (words []string, directive string) {
	t.Helper()
	code, out, errs := runMain(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		w, _, _ := strings.Cut(line, "\t")
		words = append(words, w)
	}
	return words, directive
}

func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "review.prose.md")
	if code, _, errs := runMain(t, "new", spec); code != 0 {
		t.Fatal(errs)
	}
	runDir := filepath.Join(dir, "runs")
	if code, _, errs := runMain(t, "run", spec, "--slot", "worker=exec:cat", "--input", "task_brief=x", "--quiet", "--run-dir", runDir); code != 0 {
		t.Fatal(errs)
	}
	world := filepath.Join(dir, "world")
	for name, src := range map[string]string{
		"feed.prose.md":  "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `counts`: n\n",
		"tally.prose.md": "---\nname: tally\nkind: responsibility\nid: 067NC4KG01RG50R40M30E20918\n---\n\n# Tally\n\n### Requires\n\n- `feed.counts`: n\n\n### Maintains\n\n- `t`: n\n\n### Execution\n\n```prose\nlet s = call score\nreturn { t: s }\n```\n",
	} {
		if err := os.MkdirAll(world, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(world, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		args []string
		want []string // each must be offered
		not  []string // none may be
	}{
		{[]string{"lint", "--format", ""}, []string{"text", "json", "github", "sarif"}, nil},
		{[]string{"lint", "--format", "s"}, []string{"sarif"}, []string{"json"}},
		{[]string{"new", "x", "--kind", ""}, []string{"pattern", "function", "responsibility", "test"}, nil},
		// a function's callees, its inline nodes and its own render
		{[]string{"run", filepath.Join(testenv.MustRoot(t), "testdata", "run", "release-note.prose.md"), "--slot", ""},
			[]string{"headline-writer=", "summarizer=", "release-note="}, nil},
		{[]string{"run", spec, "--slot", ""}, []string{"worker="}, nil},
		{[]string{"run", spec, "--input", "ta"}, []string{"task_brief="}, nil},
		{[]string{"run", "std/patterns/ratchet.prose.md", "--config", ""}, []string{"max_steps="}, nil},
		{[]string{"run", spec, "--slot", "worker=ll"}, []string{"worker=llm", "worker=llm:"}, []string{"worker=exec:"}},
		{[]string{"run", spec, "--slot", "worker=std/patterns/ra"}, []string{"worker=std/patterns/race.prose.md", "worker=std/patterns/ratchet.prose.md"}, nil},
		{[]string{"show", "std/patterns/fan"}, []string{"std/patterns/fan-out.prose.md"}, nil},
		// a project's nodes by id and by name, and the callees of each
		{[]string{"run", world, "--slot", "ta"}, []string{"tally=", "tally.score="}, []string{"feed="}},
		{[]string{"run", world, "--slot", "067"}, []string{"067NC4KG01RG50R40M30E20918=", "067NC4KG01RG50R40M30E20918.score="}, nil},
		{[]string{"run", world, "--tick", ""}, []string{"tally", "067NC4KG01RG50R40M30E20918", "feed"}, nil},
		{[]string{"graph", world, "--explain", "t"}, []string{"tally"}, []string{"feed"}},
		{[]string{"resume", "--run-dir", runDir, ""}, []string{"latest"}, nil},
		{[]string{"replay", "--run-dir", runDir, "l"}, []string{"latest"}, nil},
	}
	for _, c := range cases {
		words, _ := complete(t, c.args...)
		got := strings.Join(words, " ")
		for _, w := range c.want {
			if !containsWord(words, w) {
				t.Errorf("%v: %q not offered (got %q)", c.args, w, got)
			}
		}
		for _, w := range c.not {
			if containsWord(words, w) {
				t.Errorf("%v: %q offered (got %q)", c.args, w, got)
			}
		}
	}
	// Run ids: the run just made, for resume, replay, runs show and runs rm.
	id := regexp.MustCompile(`^\d{8}T\d{6}-[0-9a-f]+$`)
	for _, args := range [][]string{{"resume", "--run-dir", runDir, ""}, {"runs", "rm", "--run-dir", runDir, ""}, {"runs", "show", "--run-dir", runDir, ""}} {
		words, dir := complete(t, args...)
		n := 0
		for _, w := range words {
			if id.MatchString(w) {
				n++
			}
		}
		if n != 1 || !strings.HasPrefix(dir, ":4") {
			t.Errorf("%v: offered %q (%s), want the one run id and no files", args, words, dir)
		}
	}
}

// A word that is still a prefix of std/ offers the library and the local
// files that start so, side by side.
func TestCompletionOffersLocalFilesBesideStd(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sample.prose.md", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	words, _ := complete(t, "show", "s")
	for _, w := range []string{"sample.prose.md", "specs/", "std/patterns/ratchet.prose.md"} {
		if !containsWord(words, w) {
			t.Errorf("show s: %q not offered (got %q)", w, words)
		}
	}
	if words, _ := complete(t, "lint", "std/pa"); containsWord(words, "sample.prose.md") {
		t.Errorf("lint std/pa offers a local file: %q", words)
	}
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}
