package drain_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
)

// project writes files into a directory and loads its graph.
func project(t *testing.T, files map[string]string) *graph.Graph {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatalf("%v\n%s", err, diags)
	}
	return g
}

func slots(texts ...string) []run.Assignment {
	var out []run.Assignment
	for _, s := range texts {
		name, value, _ := strings.Cut(s, "=")
		out = append(out, run.Assignment{Name: name, Value: value})
	}
	return out
}

const feed = "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `counts`: tallies\n"

var board = map[string]string{
	"feed.prose.md": feed,
	"board.prose.md": "---\nname: board\nkind: responsibility\n---\n\n# Board\n\n### Requires\n\n- `counts`: the tallies of `feed`\n\n### Maintains\n\n- `points`: the score\n\n" +
		"### Execution\n\n```prose\nlet p = call score\n  counts: counts\nlet q = call rank\n  points: p\nreturn { points: q }\n```\n",
	"score.prose.md": "---\nname: score\nkind: function\n---\n\n# Score\n\n### Parameters\n\n- `counts`: the tallies\n\n### Returns\n\n- `points`: a number\n",
	"rank.prose.md":  "---\nname: rank\nkind: function\n---\n\n# Rank\n\n### Parameters\n\n- `points`: a number\n\n### Returns\n\n- `rank`: a number\n",
}

func prepare(t *testing.T, g *graph.Graph, as []run.Assignment, c drain.Config) *drain.Prepared {
	t.Helper()
	b, err := drain.ParseBindings(g, "--slot", as)
	if err != nil {
		t.Fatal(err)
	}
	p, err := drain.Prepare(g, b, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// What renders a node, as its contract fingerprint holds it, does not
// depend on the order its bindings were given in, nor on spaces around
// a binding's text; it does depend on what each callee is bound to.
func TestBindingIsCanonical(t *testing.T) {
	g := project(t, board)
	n := g.Node("board")
	a := prepare(t, g, slots("feed=exec:./feed", "board.score=exec:./s", "board.rank=exec:./r"), drain.Config{}).Binding(n)
	b := prepare(t, g, slots("board.rank= exec:./r ", "feed=exec:./feed", "board.score=exec: ./s"), drain.Config{}).Binding(n)
	if a != b {
		t.Errorf("the order of the bindings moved what renders board:\n%q\n%q", a, b)
	}
	if want := "execution rank=exec:./r score=exec:./s"; a != want {
		t.Errorf("binding %q, want %q", a, want)
	}
	c := prepare(t, g, slots("feed=exec:./feed", "board.score=exec:./r", "board.rank=exec:./r"), drain.Config{}).Binding(n)
	if c == a {
		t.Errorf("rebinding score did not move what renders board: %q", c)
	}
	if f := prepare(t, g, slots("feed= exec:./feed", "board.score=exec:./s", "board.rank=exec:./r"), drain.Config{}).Binding(g.Node("feed")); f != "exec:./feed" {
		t.Errorf("feed: %q", f)
	}
}

// A model-rendered node names the bindings of the functions it calls, so
// rebinding one re-renders it; with none, it is its model binding alone.
func TestModelRenderDescribesFunctionBindings(t *testing.T) {
	g := project(t, board)
	n := g.Node("feed")
	if got := prepare(t, g, slots("feed=llm:m", "board.score=exec:./s", "board.rank=exec:./r"), drain.Config{}).Binding(n); got != "llm:m" {
		t.Errorf("without bindings: %q", got)
	}
	a := prepare(t, g, slots("feed=llm:m", "feed.format=exec:./a", "board.score=exec:./s", "board.rank=exec:./r"), drain.Config{}).Binding(n)
	b := prepare(t, g, slots("feed=llm:m", "feed.format=exec:./b", "board.score=exec:./s", "board.rank=exec:./r"), drain.Config{}).Binding(n)
	if a == b || a != "llm:m format=exec:./a" {
		t.Errorf("binding %q, then %q", a, b)
	}
}

// Bindings are read by run.ParseBinding: a node takes a program or a
// model, a callee any binding; an unknown node is refused with the
// nearest name.
func TestParseBindingsRefuses(t *testing.T) {
	g := project(t, board)
	for _, tc := range []struct{ slot, want string }{
		{"boardd=exec:./x", "--slot boardd: no such node; did you mean board?"},
		{"board=std/x.prose.md", `--slot board: binding "std/x.prose.md": a node's render takes exec:COMMAND, or llm[:MODEL]`},
		{"*=exec:", `--slot *: binding "exec:": a node's render takes exec:COMMAND, or llm[:MODEL]`},
		{"board.score=nonsense", `--slot board.score: cannot tell what "nonsense" is`},
	} {
		_, err := drain.ParseBindings(g, "--slot", slots(tc.slot))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.slot, err, tc.want)
		}
	}
}

// A node with nothing to render it, or a function only a model would
// render with no model configured, refuses the drain before it starts.
func TestPrepareRefusesUnbound(t *testing.T) {
	g := project(t, board)
	b, _ := drain.ParseBindings(g, "--slot", slots("board.score=exec:./s", "board.rank=exec:./r"))
	var unbound *drain.UnboundError
	if _, err := drain.Prepare(g, b, drain.Config{}); !errors.As(err, &unbound) || strings.Join(unbound.Nodes, " ") != "feed" {
		t.Errorf("unbound feed: %v", err)
	}
	b, _ = drain.ParseBindings(g, "--slot", slots("*=exec:./all", "board.score=exec:./s"))
	var callees *drain.UnboundCalleesError
	if _, err := drain.Prepare(g, b, drain.Config{}); !errors.As(err, &callees) || strings.Join(callees.Callees, " ") != "board.rank" {
		t.Errorf("unbound rank: %v", err)
	}
}

// The hint walks the functions an Execution calls into the ones they
// call, once each: functions that call each other end the walk, and the
// one a model would render is named once, as NODE.INNER.
func TestUnboundCalleesWalksCallsOnce(t *testing.T) {
	g := project(t, map[string]string{
		"feed.prose.md": feed,
		"scorer.prose.md": "---\nname: scorer\nkind: responsibility\nid: 067NC4KG0XVMH2AA9D64TKJFA1\n---\n\n# Scorer\n\n### Requires\n\n- `counts`: the tallies of `feed`\n\n### Maintains\n\n- `points`: the score\n\n" +
			"### Execution\n\n```prose\nlet p = call ping\n  counts: counts\nreturn { points: p }\n```\n",
		"ping.prose.md": "---\nname: ping\nkind: function\n---\n\n# Ping\n\n### Parameters\n\n- `counts`: the tallies\n\n### Returns\n\n- `points`: a number\n\n" +
			"### Execution\n\n```prose\nif counts > 9:\n  return call inner\n    counts: counts\nlet q = call pong\n  counts: counts\nreturn q\n```\n",
		"pong.prose.md": "---\nname: pong\nkind: function\n---\n\n# Pong\n\n### Parameters\n\n- `counts`: the tallies\n\n### Returns\n\n- `points`: a number\n\n" +
			"### Execution\n\n```prose\nlet q = call ping\n  counts: counts\nlet r = call inner\n  counts: q\nreturn r\n```\n",
		"inner.prose.md": "---\nname: inner\nkind: function\n---\n\n# Inner\n\n### Parameters\n\n- `counts`: the tallies\n\n### Returns\n\n- `points`: a number\n",
	})
	b, _ := drain.ParseBindings(g, "--slot", slots("feed=exec:cat"))
	var callees *drain.UnboundCalleesError
	if _, err := drain.Prepare(g, b, drain.Config{}); !errors.As(err, &callees) || strings.Join(callees.Callees, " ") != "067NC4KG0XVMH2AA9D64TKJFA1.inner" {
		t.Errorf("unbound: %v", err)
	}
	b, _ = drain.ParseBindings(g, "--slot", slots("feed=exec:cat", "scorer.inner=exec:echo 7"))
	if _, err := drain.Prepare(g, b, drain.Config{}); err != nil {
		t.Errorf("bound, still refused: %v", err)
	}
}

// A test's ### Drains binds its nodes as --slot does, to programs: a
// node bound to a model is refused (a test's drains have none), and so
// is a function only a model would render.
func TestSectionRefusesModels(t *testing.T) {
	files := map[string]string{}
	for k, v := range board {
		files[k] = v
	}
	for _, tc := range []struct{ bind, want string }{
		{`feed: llm`, "bind feed: llm: a test's drains have no model"},
		{`"*": llm:m`, "bind *: llm:m: a test's drains have no model"},
		{`feed: exec:cat` + "\n  board.score: exec:echo 1", "the functions board.rank that an Execution calls are rendered by a model"},
		{`board.score: exec:echo 1`, "node feed has no ### Execution to run and no binding"},
	} {
		files["board.test.prose.md"] = "---\nname: t\nkind: test\nsubject: board\n---\n\n# T\n\n### Drains\n\n```yaml\nbind:\n  " + tc.bind + "\ndrains:\n  - rendered: all\n```\n\n### Expects\n\n- `points`: is present\n"
		g := project(t, files)
		test := filepath.Join(g.Root, "board.test.prose.md")
		sp, _, err := spec.Load(test)
		if err != nil {
			t.Fatal(err)
		}
		w, diags := drain.ParseTest(sp)
		if w == nil {
			t.Fatalf("%s", diags)
		}
		_, _, err = drain.RunTest(context.Background(), w, filepath.Join(g.Root, "board.prose.md"), drain.TestOptions{Dir: g.Root, State: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.bind, err, tc.want)
		}
	}
}

// countingFS counts the opens of each file of the operating system's.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[filepath.Base(name)]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

// The functions two nodes' Executions call are read once by Prepare,
// however many nodes call them.
func TestPrepareReadsCalleesOnce(t *testing.T) {
	exec := func(name string) string {
		return "---\nname: " + name + "\nkind: responsibility\n---\n\n# N\n\n### Requires\n\n- `counts`: the tallies of `feed`\n\n### Maintains\n\n- `points`: the score\n\n" +
			"### Execution\n\n```prose\nlet p = call score\n  counts: counts\nreturn { points: p }\n```\n"
	}
	g := project(t, map[string]string{
		"feed.prose.md":  feed,
		"one.prose.md":   exec("one"),
		"two.prose.md":   exec("two"),
		"score.prose.md": board["score.prose.md"],
	})
	c := &countingFS{FS: specgraph.OS(), opens: map[string]int{}}
	b, _ := drain.ParseBindings(g, "--slot", slots("feed=exec:cat"))
	var callees *drain.UnboundCalleesError
	_, err := drain.Prepare(g, b, drain.Config{Specs: specgraph.New(specgraph.Options{FS: c})})
	if !errors.As(err, &callees) || strings.Join(callees.Callees, " ") != "one.score two.score" {
		t.Fatalf("unbound: %v", err)
	}
	if c.opens["score.prose.md"] != 1 {
		t.Errorf("score.prose.md opened %d times, want 1 (%v)", c.opens["score.prose.md"], c.opens)
	}
}

// A NODE.CALLEE binding that binds nothing is refused: a callee the
// node's Execution never calls (a misspelt one), or any callee of a node
// a program renders.
func TestPrepareRefusesUnusedCallees(t *testing.T) {
	g := project(t, board)
	for _, tc := range []struct {
		slots []string
		want  string
	}{
		{[]string{"feed=exec:cat", "board.score=exec:./s", "board.rnk=exec:./r"},
			`binding board.rnk: the Execution of board calls no function "rnk"; did you mean rank? (it calls score, rank): the binding binds nothing`},
		{[]string{"*=exec:cat", "feed.score=exec:./s"},
			`binding feed.score: feed is rendered by a program (exec:cat), which calls no function: the binding binds nothing; remove it`},
		{[]string{"*=exec:cat", "board=exec:./b", "board.score=exec:./s"},
			`binding board.score: board is rendered by a program (exec:./b), which calls no function: the binding binds nothing; remove it, or leave board to its Execution (bind no program to it)`},
		{[]string{"feed=exec:cat", "board.score=exec:./s", "board.rank=exec:./r"}, ""},
	} {
		b, err := drain.ParseBindings(g, "--slot", slots(tc.slots...))
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain.Prepare(g, b, drain.Config{})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%v: %v, want %q", tc.slots, err, tc.want)
		}
	}
}

// A node ### Drains names that the drained graph does not hold is an
// error at the name, with the nodes there are and the one meant.
func TestDrainsNamesANodeOfTheGraph(t *testing.T) {
	files := map[string]string{}
	for k, v := range board {
		files[k] = v
	}
	for _, tc := range []struct{ drain, want string }{
		{"  - rendered: [feed, bord]\n", `board.test.prose.md:15:22: error: ### Drains names "bord", which is no node of the drained graph; did you mean "board"? (its nodes: board, feed) [test/drains]`},
		{"  - events: {fed: {id: 1}}\n    rendered: all\n", `board.test.prose.md:15:14: error: ### Drains names "fed", which is no node of the drained graph; did you mean "feed"? (its nodes: board, feed) [test/drains]`},
		{"  - rendered: all\n  - ticks: [scoreboard]\n    skipped: [nothing]\n", `board.test.prose.md:16:13: error: ### Drains names "scoreboard", which is no node of the drained graph (its nodes: board, feed); so is "nothing" (17:15) [test/drains]`},
	} {
		files["board.test.prose.md"] = "---\nname: t\nkind: test\nsubject: board\n---\n\n# T\n\n### Drains\n\n```yaml\nbind:\n  \"*\": exec:cat\ndrains:\n" + tc.drain + "```\n\n### Expects\n\n- `points`: is present\n"
		g := project(t, files)
		test := filepath.Join(g.Root, "board.test.prose.md")
		sp, _, err := spec.Load(test)
		if err != nil {
			t.Fatal(err)
		}
		w, diags := drain.ParseTest(sp)
		if w == nil {
			t.Fatalf("%s", diags)
		}
		_, _, err = drain.RunTest(context.Background(), w, filepath.Join(g.Root, "board.prose.md"), drain.TestOptions{Dir: g.Root, State: t.TempDir()})
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant %s", tc.drain, err, tc.want)
		}
	}
}

// A node with an id is named in ### Drains by its id or its name, as
// --event and --tick name it: events given by name are delivered, and
// the expectations and failures by name are of that node.
func TestDrainsNameANodeByItsName(t *testing.T) {
	files := map[string]string{
		"feed.prose.md": strings.Replace(feed, "name: feed", "id: 01JABCDEFGHJKMNPQRSTVWXYZ0\nname: feed", 1),
		"feed.test.prose.md": "---\nname: t\nkind: test\nsubject: feed\n---\n\n# T\n\n### Drains\n\n```yaml\nbind:\n  feed: exec:./r.sh\ndrains:\n" +
			"  - events: {feed: {id: 1}}\n    rendered: [feed]\n  - events: {feed: {id: 2}}\n    fail: [feed]\n    failed: [feed]\n```\n\n### Expects\n\n- `counts`: is present\n",
	}
	g := project(t, files)
	if err := os.WriteFile(filepath.Join(g.Root, "r.sh"), []byte("#!/bin/sh\necho '{\"counts\": 1}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, _, err := spec.Load(filepath.Join(g.Root, "feed.test.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	w, diags := drain.ParseTest(sp)
	if w == nil {
		t.Fatalf("%s", diags)
	}
	_, checks, err := drain.RunTest(context.Background(), w, filepath.Join(g.Root, "feed.prose.md"), drain.TestOptions{Dir: g.Root, State: t.TempDir()})
	if err != nil || len(checks) != 2 {
		t.Fatalf("%v %+v", err, checks)
	}
	for _, c := range checks {
		if !c.OK {
			t.Errorf("%s: observed %s", c.Text, c.Observed)
		}
	}
}

// A drain item whose expectations fail because a render failed that it
// did not make fail says why that render failed.
func TestDrainsSayWhyARenderFailed(t *testing.T) {
	files := map[string]string{
		"feed.prose.md": feed,
		"feed.test.prose.md": "---\nname: t\nkind: test\nsubject: feed\n---\n\n# T\n\n### Drains\n\n```yaml\nbind:\n  feed: exec:./r.sh\ndrains:\n" +
			"  - events: {feed: {id: 1}}\n    rendered: [feed]\n```\n\n### Expects\n\n- `counts`: is present\n",
	}
	g := project(t, files)
	if err := os.WriteFile(filepath.Join(g.Root, "r.sh"), []byte("#!/bin/sh\necho not json\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, _, err := spec.Load(filepath.Join(g.Root, "feed.test.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	w, diags := drain.ParseTest(sp)
	if w == nil {
		t.Fatalf("%s", diags)
	}
	_, checks, err := drain.RunTest(context.Background(), w, filepath.Join(g.Root, "feed.prose.md"), drain.TestOptions{Dir: g.Root, State: t.TempDir()})
	if err != nil || len(checks) != 1 {
		t.Fatalf("%v %+v", err, checks)
	}
	if c := checks[0]; c.OK || !strings.Contains(c.Observed, "; feed failed: ") {
		t.Errorf("%+v", c)
	}
}

// A fixture that seeds a Requires item reading a producer's whole truth
// with a key the producer does not maintain is refused at the fixture:
// the subject would read null where the author meant a value.
func TestSeedOfAWholeTruth(t *testing.T) {
	files := map[string]string{
		"totals.prose.md":     "---\nname: totals\nkind: gateway\n---\n\n# Totals\n\n### Maintains\n\n- `high` (number): the high\n- `count` (integer): how many\n",
		"alert.prose.md":      "---\nname: alert\nkind: responsibility\n---\n\n# Alert\n\n### Requires\n\n- `book`: the whole truth of `totals`\n\n### Maintains\n\n- `big` (boolean): over 100\n\n### Execution\n\n```prose\nreturn { big: book.high > 100 }\n```\n",
		"alert.test.prose.md": "---\nname: t\nkind: test\nsubject: alert\n---\n\n# T\n\n### Fixtures\n\n- `book`: {\"hgh\": 150, \"count\": 2}\n\n### Drains\n\n```yaml\ndrains:\n  - rendered: [alert]\n```\n\n### Expects\n\n- `big`: is true\n",
	}
	g := project(t, files)
	sp, _, err := spec.Load(filepath.Join(g.Root, "alert.test.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	w, diags := drain.ParseTest(sp)
	tf, _ := spec.ReadTest(sp)
	if w == nil || tf == nil {
		t.Fatalf("%s", diags)
	}
	seeds := map[string]any{"book": tf.Fixtures[0].Value}
	_, _, err = drain.RunTest(context.Background(), w, filepath.Join(g.Root, "alert.prose.md"), drain.TestOptions{Dir: g.Root, State: t.TempDir(), Seeds: seeds, Fixtures: tf.Fixtures})
	want := `alert.test.prose.md:11:1: error: fixture "book" seeds the whole truth of totals, whose ### Maintains declares high, count: "hgh" is none of them, so alert would read null there; did you mean "high"? [test/seed]`
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("%v\nwant %s", err, want)
	}
}

// Events a drain item delivers to a node that is no gateway are refused
// at the name: a drain would drop them, and the test pass on events
// nothing received.
func TestDrainsEventsOfAResponsibility(t *testing.T) {
	files := map[string]string{}
	for k, v := range board {
		files[k] = v
	}
	files["board.test.prose.md"] = "---\nname: t\nkind: test\nsubject: board\n---\n\n# T\n\n### Drains\n\n```yaml\nbind:\n  \"*\": exec:cat\ndrains:\n  - events: {board: {id: 1}}\n```\n\n### Expects\n\n- `points`: is present\n"
	g := project(t, files)
	sp, _, err := spec.Load(filepath.Join(g.Root, "board.test.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	w, diags := drain.ParseTest(sp)
	if w == nil {
		t.Fatalf("%s", diags)
	}
	_, _, err = drain.RunTest(context.Background(), w, filepath.Join(g.Root, "board.prose.md"), drain.TestOptions{Dir: g.Root, State: t.TempDir()})
	want := "board.test.prose.md:15:14: error: ### Drains, drain 1, delivers events to board, a responsibility, and events are delivered to gateways only"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v\nwant %s", err, want)
	}
}
