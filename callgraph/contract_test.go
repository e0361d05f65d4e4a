package callgraph_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/spec"
)

// writeFiles writes name -> content under a new temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fn writes a function spec: name, inputs, outputs, then the rest.
func fn(name, params, returns, rest string) string {
	s := "---\nname: " + name + "\nkind: function\n---\n\n"
	if params != "" {
		s += "### Parameters\n\n"
		for _, p := range strings.Fields(params) {
			s += "- `" + p + "`: input " + p + "\n"
		}
		s += "\n"
	}
	s += "### Returns\n\n"
	for _, r := range strings.Fields(returns) {
		s += "- `" + r + "`: output " + r + "\n"
	}
	return s + "\n" + rest
}

func exe(body string) string { return "### Execution\n\n```prose\n" + body + "\n```\n\n" }

func node(name, params, returns string) string {
	s := "## " + name + "\n\n### Parameters\n\n"
	for _, p := range strings.Fields(params) {
		s += "- `" + p + "`: input " + p + "\n"
	}
	s += "\n### Returns\n\n"
	for _, r := range strings.Fields(returns) {
		s += "- `" + r + "`: output " + r + "\n"
	}
	return s + "\n"
}

func runContract(t *testing.T, path string, slots []string, inputs map[string]string, env *bind.Env) (delegation.Value, error) {
	t.Helper()
	var b bind.Settings
	for _, s := range slots {
		name, value, _ := strings.Cut(s, "=")
		b.Slots = append(b.Slots, bind.Assignment{Name: name, Value: value})
	}
	for k, v := range inputs {
		b.Inputs = append(b.Inputs, bind.Assignment{Name: k, Value: v})
	}
	if env == nil {
		env = &bind.Env{Nested: callgraph.NestedSpec}
	}
	if env.ContractCheck == nil {
		env.ContractCheck = lint.Contract // as prose runs it
	}
	return runhost.Run(context.Background(), runhost.RunOptions{Path: path, Bindings: b, Env: env})
}

func asJSON(t *testing.T, v delegation.Value) string {
	raw, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestResolutionOrder runs one call per rung of the order and checks
// which callee answered.
func TestResolutionOrder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.prose.md": fn("root", "x", "a b c d e", exe(
			"let a = call helper\n  x: x\nlet b = call by-name\n  x: x\nlet c = call by-stem\n  x: x\n"+
				"let d = call pkg\n  x: x\nlet e = call overridden\n  x: x\nreturn { a: a, b: b, c: c, d: d, e: e }")+
			node("helper", "x", "y")+node("overridden", "x", "y")),
		"other-file.prose.md": fn("by-name", "x", "y", exe("return \"sibling by name\"")),
		"by-stem.prose.md":    fn("stem-file", "x", "y", exe("return \"sibling by stem\"")),
		"pkg/index.prose.md":  fn("pkg", "x", "y", exe("return \"index\"")),
	})
	v, err := runContract(t, filepath.Join(dir, "root.prose.md"),
		[]string{"helper=exec:echo node", "overridden=exec:echo slot"}, map[string]string{"x": "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"node","b":"sibling by name","c":"sibling by stem","d":"index","e":"slot"}`
	if got := asJSON(t, v); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// A node and a sibling of the same name: the node (nearer) wins, and lint
// warns.
func TestResolutionAmbiguity(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.prose.md":   fn("root", "", "r", exe("return call helper")+"## helper\n\n### Returns\n\n- `r`: x\n\n### Execution\n\n```prose\nreturn \"node\"\n```\n"),
		"helper.prose.md": fn("helper", "", "r", exe("return \"sibling\"")),
	})
	path := filepath.Join(dir, "root.prose.md")
	v, err := runContract(t, path, nil, nil, nil)
	if err != nil || asJSON(t, v) != `{"r":"node"}` {
		t.Fatalf("got %v %v, want the node's answer", v, err)
	}
	res, err := lint.Paths([]string{path}, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diags) != 1 || res.Diags[0].Code != lint.CodeAmbiguousCall || res.Diags[0].Line != 13 ||
		!strings.Contains(res.Diags[0].Message, "helper.prose.md") {
		t.Errorf("lint = %v, want one ambiguity warning at the call naming the sibling", res.Diags)
	}
}

// An unresolved target is a lint error with a did-you-mean at the call's
// line, and the run is refused before it starts.
func TestResolutionUnresolved(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.prose.md": fn("root", "", "r", exe("let r = call helpr\nreturn r")+node("helper", "", "r")),
	})
	path := filepath.Join(dir, "root.prose.md")
	res, _ := lint.Paths([]string{path}, lint.Options{})
	if len(res.Diags) != 1 || res.Diags[0].Code != lint.CodeUnresolvedCall || res.Diags[0].Line != 13 ||
		!strings.Contains(res.Diags[0].Message, `did you mean "helper"?`) {
		t.Errorf("lint = %v", res.Diags)
	}
	_, err := runContract(t, path, nil, nil, nil)
	var se *callgraph.SpecError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "helpr") {
		t.Errorf("run: %v, want the spec refused", err)
	}
	// A --slot naming no callee is refused with a did-you-mean.
	dir2 := writeFiles(t, map[string]string{"f.prose.md": fn("f", "", "r", exe("return call helper")+node("helper", "", "r"))})
	_, err = runContract(t, filepath.Join(dir2, "f.prose.md"), []string{"helpr=exec:echo x"}, nil, nil)
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `did you mean "helper"?`) {
		t.Errorf("run with an unknown --slot: %v", err)
	}
}

// Files that call each other without end stop at the nesting limit with
// an error naming the node.
func TestResolutionCycle(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.prose.md": fn("a", "x", "r", exe("return call b\n  x: x")),
		"b.prose.md": fn("b", "x", "r", exe("return call a\n  x: x")),
	})
	_, err := runContract(t, filepath.Join(dir, "a.prose.md"), nil, map[string]string{"x": "1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "would nest more than 16 calls deep") {
		t.Fatalf("err = %v, want the nesting limit", err)
	}
	var de *delegation.Error
	if !errors.As(err, &de) || de.Kind != delegation.KindCall {
		t.Errorf("the limit is a failed call of the run: %#v", err)
	}
}

// renderEnv is an Env whose renders go to a scripted model.
func renderEnv(t *testing.T, replies ...llmtest.Reply) (*bind.Env, *llmtest.Server) {
	srv := llmtest.NewServer(t, replies...)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := &bind.Env{Nested: callgraph.NestedSpec, Render: callgraph.RenderWith(func(string) (*llm.Client, error) { return c, nil })}
	return env, srv
}

const checkerNode = "## checker\n\n### Parameters\n\n- `x`: input\n\n### Returns\n\n- `ok`: verdict\n\n### Errors\n\n- `bad-input`: the input cannot be checked\n"

func TestDeclaredErrorCaught(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.prose.md": fn("root", "x", "result", exe(
			"try:\n  let r = call checker\n    x: x\n  return r\ncatch as e:\n  return e.error")+checkerNode),
	})
	env, srv := renderEnv(t, llmtest.Reply{Content: `{"error": "bad-input", "message": "empty"}`})
	v, err := runContract(t, filepath.Join(dir, "root.prose.md"), nil, map[string]string{"x": ""}, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, v); got != `{"result":"bad-input"}` {
		t.Errorf("got %s, want the caught declared error's name", got)
	}
	if srv.Count() != 1 {
		t.Errorf("%d requests, want 1", srv.Count())
	}
}

func TestDeclaredErrorUncaught(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.prose.md": fn("root", "x", "ok", exe("return call checker\n  x: x")+checkerNode),
	})
	env, _ := renderEnv(t, llmtest.Reply{Content: `{"error": "bad-input", "message": "empty"}`})
	_, err := runContract(t, filepath.Join(dir, "root.prose.md"), nil, map[string]string{"x": ""}, env)
	var declared *llm.DeclaredError
	if !errors.As(err, &declared) || declared.Name != "bad-input" {
		t.Fatalf("err = %v, want the declared error", err)
	}
	// The node's position: the ## checker heading, line 21.
	if !strings.Contains(err.Error(), "root.prose.md:21:1: checker failed with its declared error bad-input: empty") {
		t.Errorf("message lacks the node's position: %v", err)
	}
}

func TestUndeclaredErrorIsProtocolError(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.prose.md": fn("root", "x", "ok", exe("try:\n  return call checker\n    x: x\ncatch as e:\n  return \"caught\"")+checkerNode),
	})
	env, _ := renderEnv(t, llmtest.Reply{Content: `{"error": "out-of-coffee", "message": "sorry"}`})
	v, err := runContract(t, filepath.Join(dir, "root.prose.md"), nil, map[string]string{"x": ""}, env)
	// A protocol error fails the call like any service failure (catchable);
	// uncaught it names the node and the declared errors.
	if err != nil || asJSON(t, v) != `{"ok":"caught"}` {
		t.Fatalf("got %v %v", v, err)
	}
	dir2 := writeFiles(t, map[string]string{
		"root.prose.md": fn("root", "x", "ok", exe("return call checker\n  x: x")+checkerNode),
	})
	env, _ = renderEnv(t, llmtest.Reply{Content: `{"error": "out-of-coffee", "message": "sorry"}`})
	_, err = runContract(t, filepath.Join(dir2, "root.prose.md"), nil, map[string]string{"x": ""}, env)
	var pe *llm.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `answered the error "out-of-coffee", which it does not declare (it declares bad-input)`) {
		t.Errorf("err = %v, want a protocol error", err)
	}
}

// A render that leaves out an output is a protocol error too; one that
// answers exactly its outputs gives them.
func TestRenderOutputs(t *testing.T) {
	info := llm.RenderInfo{Name: "n", Pos: "f:1:1", Returns: []llm.Field{{Name: "a"}, {Name: "b"}}}
	o := delegation.NewObject()
	o.Set("a", "1")
	if _, err := llm.CheckRender(info, o); err == nil || !strings.Contains(err.Error(), "without b") {
		t.Errorf("missing output: %v", err)
	}
	o.Set("b", int64(2))
	o.Set("extra", true)
	v, err := llm.CheckRender(info, o)
	if err != nil || asJSON(t, v) != `{"a":"1","b":2}` {
		t.Errorf("got %v %v, want exactly the outputs", v, err)
	}
	if _, err := llm.CheckRender(info, "plain text"); err == nil {
		t.Error("a text reply is a protocol error")
	}
}

// A gateway is refused; a world-model operation outside a drain is
// refused at its position, saying how to drain.
func TestRunRefusals(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"g.prose.md": "---\nname: g\nkind: gateway\n---\n\n### Continuity\n\n- external-driven\n\n### Maintains\n\n- `events`: latest\n",
		"r.prose.md": "---\nname: r\nkind: responsibility\n---\n\n### Maintains\n\n- `state`: s\n\n" + exe("let w = call read_world_model\nreturn w"),
	})
	_, err := runContract(t, filepath.Join(dir, "g.prose.md"), nil, nil, nil)
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "is a gateway") {
		t.Errorf("gateway: %v", err)
	}
	sp, _, _ := spec.Load(filepath.Join(dir, "r.prose.md"))
	_, err = runhost.Run(context.Background(), runhost.RunOptions{Spec: sp, Env: &bind.Env{}, Load: spec.Load})
	if err == nil || !strings.Contains(err.Error(), "r.prose.md:13:14: read_world_model reads a world model, which a run of one file does not keep: drain the project") {
		t.Errorf("world model: %v", err)
	}
}

// A role of the library serves as a binding of a callee, and a with:
// target of a pattern instance may be a std/ path.
func TestRolesAsBindings(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"review.prose.md": fn("review", "draft bar", "verdict", exe("let e = call critic\n  output: draft\n  criteria: bar\nreturn e.verdict")+node("critic", "output criteria", "verdict")),
		"loop.prose.md": "---\nname: loop\nkind: pattern\nversion: 0.15.0\n---\n\n### Slots\n\n- `writer`: drafts\n  - requires: `brief`\n  - ensures: `draft`\n\n" +
			"### Delegation\n\n```prose\nlet d = call writer\n  brief: brief\nreturn { draft: d }\n```\n",
		"uses.prose.md": fn("uses", "brief", "draft", "### Patterns\n\n```yaml\n- name: drafted\n  pattern: loop\n  with:\n    writer: std/roles/writer\n```\n\n"+
			exe("return call drafted\n  brief: brief")),
	})
	env, srv := renderEnv(t,
		llmtest.Reply{Content: `{"accepted": true, "verdict": "accept", "reasoning": "fine", "issues": []}`, Match: `carry out the function \"critic\"`},
		llmtest.Reply{Content: `{"draft": "a page"}`, Match: `carry out the function \"std/roles/writer\"`})
	v, err := runContract(t, filepath.Join(dir, "review.prose.md"), []string{"critic=std/roles/critic.prose.md"}, map[string]string{"draft": "d", "bar": "b"}, env)
	if err != nil || asJSON(t, v) != `{"verdict":"accept"}` {
		t.Fatalf("role binding: %v %v", v, err)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Judges whether") && !strings.Contains(string(reqs[0].Body), "acceptance criteria") {
		t.Errorf("the render did not state the role's contract: %d requests", len(reqs))
	}
	v, err = runContract(t, filepath.Join(dir, "uses.prose.md"), nil, map[string]string{"brief": "b"}, env)
	if err != nil || asJSON(t, v) != `{"draft":"a page"}` {
		t.Fatalf("std/ with: target: %v %v", v, err)
	}
}

// The return rule: an object with every output name is the outputs (other
// keys dropped); one output takes any other value; several outputs need
// an object.
func TestOutputsReturnRule(t *testing.T) {
	one, _ := spec.Parse("one.prose.md", []byte(fn("one", "", "result", "")))
	two, _ := spec.Parse("two.prose.md", []byte(fn("two", "", "a b", "")))
	obj := func(kv ...any) *delegation.Object {
		o := delegation.NewObject()
		for i := 0; i < len(kv); i += 2 {
			o.Set(kv[i].(string), kv[i+1])
		}
		return o
	}
	for _, c := range []struct {
		sp   *spec.Spec
		v    delegation.Value
		want string
	}{
		{one, "text", `{"result":"text"}`},
		{one, obj("result", "x", "extra", true), `{"result":"x"}`},
		{one, obj("other", "x"), `{"result":{"other":"x"}}`},
		{two, obj("b", int64(2), "a", int64(1), "c", nil), `{"a":1,"b":2}`},
		{two, "text", "error"},
		{two, obj("a", int64(1)), "error"},
	} {
		got, err := callgraph.Outputs(c.sp, c.v)
		if c.want == "error" {
			if err == nil || !strings.Contains(err.Error(), "declares 2 outputs (a, b)") {
				t.Errorf("%s %v: err %v, want the return-rule error", c.sp.Name, c.v, err)
			}
			continue
		}
		if err != nil || asJSON(t, got) != c.want {
			t.Errorf("%s %v: got %v %v, want %s", c.sp.Name, c.v, got, err, c.want)
		}
	}
}

// --slot binds a pattern instance's slot by INSTANCE.SLOT, and a node the
// instance's with: maps a slot to by the node's name.
func TestInstanceSlotBindings(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"loop.prose.md": "---\nname: loop\nkind: pattern\nversion: 0.15.0\n---\n\n### Slots\n\n- `worker`: works\n  - requires: `task`\n- `critic`: judges\n\n### Config\n\n- `rounds` (integer, default: 1): how many rounds\n\n" +
			"### Delegation\n\n```prose\nlet w = call worker\n  task: task\nlet c = call critic\n  output: w\nreturn { result: c, rounds: rounds }\n```\n",
		"f.prose.md": fn("f", "task", "result rounds", "### Patterns\n\n```yaml\n- name: reviewed\n  pattern: loop\n  with:\n    worker: maker\n    critic: judge\n  config:\n    rounds: 3\n```\n\n"+
			exe("return call reviewed\n  task: task")+node("maker", "task", "output")+node("judge", "output", "verdict")),
	})
	v, err := runContract(t, filepath.Join(dir, "f.prose.md"),
		[]string{"maker=exec:echo made", "reviewed.critic=exec:echo judged"}, map[string]string{"task": "t"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, v); got != `{"result":"judged","rounds":3}` {
		t.Errorf("got %s", got)
	}
	// Without a binding for judge and no model, the run is refused naming it.
	_, err = runContract(t, filepath.Join(dir, "f.prose.md"), []string{"maker=exec:echo made"}, map[string]string{"task": "t"}, nil)
	if err == nil || !strings.Contains(err.Error(), "--slot judge=exec:COMMAND") {
		t.Errorf("err = %v", err)
	}
}
