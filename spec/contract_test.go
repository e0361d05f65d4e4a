package spec

import (
	"fmt"
	"strings"
	"testing"
)

const contractSrc = "---\nname: draft-review\nkind: responsibility\n---\n\n" +
	"### Requires\n\n- `raw-notes`: notes to work from\n- topic: the subject, optional\n\n" +
	"### Maintains\n\n- `summary`: two sentences\n\n" +
	"### Goal\n\nKeep a summary current.\n\n" +
	"### Continuity\n\n- input-driven\n\n" +
	"### Errors\n\n- `no-notes`: nothing to summarize\n- bad-topic: the topic is empty\n\n" +
	"### Strategies\n\n- when notes are thin: say so\n\n" +
	"### Patterns\n\n```yaml\n- name: reviewed\n  pattern: std/patterns/worker-critic\n  with:\n    worker: writer\n    critic: reviewer\n  config:\n    max_rounds: 3\n```\n\n" +
	"### Execution\n\n```prose\nlet r = call reviewed\n  task: topic\nreturn r\n```\n\n" +
	"## writer\n\n### Parameters\n\n- `task`: what to write\n\n### Returns\n\n- `output`: the text\n\n" +
	"## reviewer\n\n### Requires\n\n- `output`: the text\n\n### Maintains\n\n- `accepted`: verdict\n- `feedback`: notes\n\n### Requires\n\n- `extra`: repeated inputs section\n"

func TestContractLoad(t *testing.T) {
	s, diags := Parse("dir/other-stem.prose.md", []byte(contractSrc))
	if !s.Contract {
		t.Fatal("a responsibility is read by the Contract Markdown rules")
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	// No name-mismatch, no no-title, no unknown sections, and the
	// Requires+Parameters of the node reviewer are one duplicate pair
	// only within that node (its Parameters repeats its Requires).
	if strings.Join(codes, ",") != CodeDuplicateSection {
		t.Errorf("diagnostics = %v, want only the node's duplicate section", diags)
	}
	names := func(ins []*Input) string {
		var out []string
		for _, in := range ins {
			out = append(out, in.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(s.Inputs); got != "raw-notes,topic" {
		t.Errorf("inputs = %s", got)
	}
	if !s.Inputs[1].Optional || s.Inputs[0].Optional {
		t.Errorf("optional flags wrong: %+v %+v", s.Inputs[0], s.Inputs[1])
	}
	if len(s.Outputs) != 1 || s.Outputs[0].Name != "summary" {
		t.Errorf("outputs = %+v", s.Outputs)
	}
	if s.Goal != "Keep a summary current." || strings.Join(s.Continuity, "") != "input-driven" || len(s.Strategies) != 1 {
		t.Errorf("goal %q continuity %q strategies %q", s.Goal, s.Continuity, s.Strategies)
	}
	if len(s.Errors) != 2 || s.Errors[0].Name != "no-notes" || s.Errors[1].Name != "bad-topic" {
		t.Errorf("errors = %+v", s.Errors)
	}
	if len(s.Patterns) != 1 {
		t.Fatalf("patterns = %+v", s.Patterns)
	}
	p := s.Patterns[0]
	if p.Name != "reviewed" || p.Pattern != "std/patterns/worker-critic" || p.Callee("worker") != "writer" || p.Callee("critic") != "reviewer" || p.Config["max_rounds"] != int64(3) {
		t.Errorf("instance = %+v", p)
	}
	if got := s.File.Position(p.Pos); got.Line != 35 {
		t.Errorf("instance position = %v, want line 35", got)
	}
	if s.Execution == nil || s.Execution.Program == nil || s.Renders() {
		t.Fatalf("execution not parsed: %+v", s.Execution)
	}
	if len(s.Nodes) != 2 {
		t.Fatalf("nodes = %d", len(s.Nodes))
	}
	w, r := s.Node("writer"), s.Node("reviewer")
	if w.Kind != "function" || names(w.Inputs) != "task" || len(w.Outputs) != 1 || !w.Renders() || w.Parent != s {
		t.Errorf("writer = %+v", w)
	}
	if r.Kind != "responsibility" || names(r.Inputs) != "output" || len(r.Outputs) != 2 {
		t.Errorf("reviewer = kind %s inputs %s outputs %d", r.Kind, names(r.Inputs), len(r.Outputs))
	}
	if s.File.Position(w.Pos).Line != 52 {
		t.Errorf("writer heading at %v", s.File.Position(w.Pos))
	}
	// The file's own sections stop at the first ## node.
	for _, sec := range s.Sections {
		if strings.Contains(sec.Body, "## writer") {
			t.Errorf("section %s runs into the node: %q", sec.Heading, sec.Body)
		}
	}
	js, err := s.JSON()
	if err != nil || !strings.Contains(string(js), `"nodes"`) || !strings.Contains(string(js), `"raw-notes"`) {
		t.Errorf("show JSON lacks the nodes or inputs: %s %v", js, err)
	}
}

func TestContractGeneration(t *testing.T) {
	for _, c := range []struct {
		kind, version string
		want          bool
	}{
		{"function", "", true}, {"responsibility", "", true}, {"gateway", "", true}, {"test", "", true},
		{"pattern", "0.15.0", true}, {"pattern", "0.16", true}, {"pattern", "", false},
		{"pattern", "1.0.0", false}, {"pattern", "0.11.2", false}, {"pattern", "2.0", false},
	} {
		if got := isContract(Kind(c.kind), c.version); got != c.want {
			t.Errorf("isContract(%q, %q) = %v", c.kind, c.version, got)
		}
	}
}

func TestContractNearSection(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Paramters\n\n- `a`: x\n\n### Background\n\nfree prose\n\n### Strategy\n\n- s\n"
	_, diags := Parse("f.prose.md", []byte(src))
	var got []string
	for _, d := range diags {
		got = append(got, d.Message)
	}
	if len(got) != 2 || !strings.Contains(got[0], "did you mean ### Parameters") || !strings.Contains(got[1], "did you mean ### Strategies") {
		t.Errorf("findings = %q", got)
	}
}

func TestContractTestKind(t *testing.T) {
	src := "---\nname: t\nkind: test\nsubject: summarizer\n---\n\n### Fixtures\n\n- `text`: hi\n\n### Expects\n\n- `summary`: short\n\n### Expects Not\n\n- `summary`: empty\n"
	s, diags := Parse("t.prose.md", []byte(src))
	if len(diags) != 0 || s.Subject != "summarizer" {
		t.Errorf("subject %q diags %v", s.Subject, diags)
	}
	for _, sec := range s.Sections {
		if !sec.Known {
			t.Errorf("section %q not known", sec.Heading)
		}
	}
}

// In a file of many nodes Node finds each by name, the first of a name
// declared twice, as in a file of few; a call resolves to the node.
func TestNodeLookup(t *testing.T) {
	for _, count := range []int{3, 30} {
		var b strings.Builder
		b.WriteString("---\nname: many\nkind: function\n---\n\n### Returns\n\n- `out`: value\n\n### Execution\n\n```prose\nreturn call n1\n```\n\n")
		for i := range count {
			fmt.Fprintf(&b, "## n%d\n\n### Returns\n\n- `out%d`: value\n\n", i, i)
		}
		b.WriteString("## n1\n\n### Returns\n\n- `again`: value\n")
		s, _ := Parse("many.prose.md", []byte(b.String()))
		if len(s.Nodes) != count+1 {
			t.Fatalf("%d nodes, want %d", len(s.Nodes), count+1)
		}
		for i := range count {
			n := s.Node(fmt.Sprintf("n%d", i))
			if n == nil || n != s.Nodes[i] {
				t.Errorf("%d nodes: Node(n%d) = %v, want the node declared %d-th", count, i, n, i)
			}
		}
		if s.Node("n1") != s.Nodes[1] || s.Node("n1").Outputs[0].Name != "out1" {
			t.Errorf("%d nodes: the repeated n1 is not the first", count)
		}
		if s.Node("nope") != nil || s.Node("") != nil {
			t.Errorf("%d nodes: a name no node has was found", count)
		}
		if c := s.ResolveCall("n1", nil, nil); c == nil || c.Kind != CalleeNode || c.Node != s.Nodes[1] {
			t.Errorf("%d nodes: call n1 resolved to %+v", count, c)
		}
		// a node added after loading is found too
		extra := &Spec{Name: "late", Parent: s}
		s.Nodes = append(s.Nodes, extra)
		if s.Node("late") != extra {
			t.Errorf("%d nodes: a node appended after loading is not found", count)
		}
	}
}

// A function's ### Returns holds claims about its value as a Maintains
// does: `postcondition:` items and bare claims are postconditions, `each
// ... has:` items are kept, and none of them is an output (`postcondition`
// was read as one, which every answer lacked); a conditional clause is no
// output either.
func TestReturnsClaimsAreNoOutputs(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: the topic\n\n" +
		"### Returns\n\n- `articles`: collected articles\n- result: a note\n- each article has: a summary and a score\n" +
		"- postcondition: `articles` has at least 1 item\n- `result` is not empty\n- if no articles are found: an empty list with a note\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var outs []string
	for _, o := range s.Outputs {
		outs = append(outs, o.Name)
	}
	if strings.Join(outs, ",") != "articles,result" {
		t.Errorf("outputs = %v, want articles,result", outs)
	}
	if s.Truth == nil {
		t.Fatal("no Truth: the Returns claims were dropped")
	}
	var claims []string
	for _, c := range s.Truth.Postconditions {
		claims = append(claims, c.Text+"@"+s.File.Position(c.Pos).String())
	}
	if want := "`articles` has at least 1 item@f.prose.md:15:18,`result` is not empty@f.prose.md:16:3"; strings.Join(claims, ",") != want {
		t.Errorf("postconditions = %v, want %s", claims, want)
	}
	if len(s.Truth.Each) != 1 || !strings.HasPrefix(s.Truth.Each[0], "each article has") {
		t.Errorf("each = %v", s.Truth.Each)
	}
}

// An item written `NAME: TYPE — text`, as upstream writes a run-typed
// one, is of that type when TYPE is one prose knows (a dash, an en dash
// or --); any other first word before a dash stays the description.
func TestItemTypedBeforeADash(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n" +
		"- `xs`: number[] — the scores\n" +
		"- `n`: integer – how many\n" +
		"- `who`: run — a finished run\n" +
		"- `mode`: fast — or slow\n" +
		"- `note`: string -- a note\n\n### Returns\n\n- `out`: the result\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string][2]string{
		"xs":   {"number[]", "the scores"},
		"n":    {"integer", "how many"},
		"who":  {"run", "a finished run"},
		"mode": {"", "fast — or slow"},
		"note": {"string", "a note"},
	}
	for _, in := range s.Inputs {
		if w := want[in.Name]; in.Type != w[0] || in.Description != w[1] {
			t.Errorf("%s: type %q, description %q; want %q, %q", in.Name, in.Type, in.Description, w[0], w[1])
		}
	}
	if len(s.Inputs) != len(want) {
		t.Errorf("%d inputs, want %d", len(s.Inputs), len(want))
	}
}
