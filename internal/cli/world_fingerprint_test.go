package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/testrun"
	"github.com/proselang/prose/world/store"
)

// fingerprintProject is a gateway feeding a responsibility whose
// Execution calls two functions, each bound to a program.
func fingerprintProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"feed.sh":       "cat >/dev/null\necho '{\"items\": [\"a\"]}'\n",
		"tally.sh":      "cat >/dev/null\necho 3\n",
		"label.sh":      "cat >/dev/null\necho '\"three\"'\n",
		"feed.prose.md": "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `items`: the evidence items\n",
		"board.prose.md": "---\nname: board\nkind: responsibility\n---\n\n# Board\n\n### Requires\n\n- `evidence`: the latest evidence *(Maintained by `feed`.)*\n\n" +
			"### Maintains\n\n- `count`: how many items\n- `label`: the count in words\n\n" +
			"### Execution\n\n```prose\nlet n = call tally\n  evidence: evidence\nlet l = call wordify\n  count: n\nreturn { count: n, label: l }\n```\n",
		"tally.prose.md":   "---\nname: tally\nkind: function\n---\n\n# Tally\n\n### Parameters\n\n- `evidence`: evidence\n\n### Returns\n\n- `count`: how many items\n",
		"wordify.prose.md": "---\nname: wordify\nkind: function\n---\n\n# Wordify\n\n### Parameters\n\n- `count`: a count\n\n### Returns\n\n- `label`: the count in words\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// contracts are the contract fingerprints of the last receipts of nodes
// in the state directory dir.
func contracts(t *testing.T, dir string, nodes ...string) map[string]string {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range nodes {
		r, err := st.Last(n)
		if err != nil || r == nil {
			t.Fatalf("%s: no receipt in %s (%v)", n, dir, err)
		}
		out[n] = r.Contract
	}
	return out
}

// prose run DIR and prose test's ### Drains prepare a drain the same way:
// given the same bindings (the run's --slot flags in another order than
// the test's bind: entries), every node's contract fingerprint is the
// same, and so is the run's with its flags swapped.
func TestRunAndTestAgreeOnFingerprints(t *testing.T) {
	dir := fingerprintProject(t)
	sh := func(name string) string { return "exec:sh " + filepath.Join(dir, name) }
	runState := func(slots ...string) map[string]string {
		state := t.TempDir()
		args := []string{"run", dir, "--state", state, "--event", `feed={"n": 1}`}
		for _, s := range slots {
			args = append(args, "--slot", s)
		}
		var out, errw bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errw); code != 0 {
			t.Fatalf("prose run: exit %d\n%s%s", code, out.String(), errw.String())
		}
		return contracts(t, state, "feed", "board")
	}
	run := runState("feed="+sh("feed.sh"), "board.wordify="+sh("label.sh"), "board.tally="+sh("tally.sh"))
	swapped := runState("board.tally="+sh("tally.sh"), "feed="+sh("feed.sh"), "board.wordify="+sh("label.sh"))

	test := filepath.Join(dir, "board.test.prose.md")
	src := "---\nname: board-drains\nkind: test\nsubject: board\n---\n\n# Board drains\n\n### Drains\n\n```yaml\nbind:\n" +
		"  feed: " + sh("feed.sh") + "\n  board.tally: " + sh("tally.sh") + "\n  board.wordify: " + sh("label.sh") + "\n" +
		"drains:\n  - events: {feed: {n: 1}}\n    rendered: all\n```\n\n### Expects\n\n- `count`: is present\n"
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := testrun.LoadCases(test)
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	opts := testrun.Options{ScratchDir: scratch, Parallel: 1}
	suite, err := testrun.Prepare(cases, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer suite.Close()
	res := suite.Run(context.Background(), opts)
	if len(res) != 1 || res[0].Status != testrun.Pass {
		var b bytes.Buffer
		testrun.WriteResult(&b, res[0])
		t.Fatalf("prose test did not pass:\n%s", b.String())
	}
	worlds, _ := filepath.Glob(filepath.Join(scratch, "*", "world"))
	if len(worlds) != 1 {
		t.Fatalf("state directories of the test: %q", worlds)
	}
	tested := contracts(t, worlds[0], "feed", "board")
	for _, n := range []string{"feed", "board"} {
		if run[n] != tested[n] || run[n] != swapped[n] {
			t.Errorf("%s: prose run %s, with its flags swapped %s, prose test %s", n, run[n], swapped[n], tested[n])
		}
	}
}
