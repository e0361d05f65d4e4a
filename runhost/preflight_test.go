package runhost

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/bind/bindtest"
	"github.com/proselang/prose/callgraph"
)

const preflightPattern = "---\nname: pre\nkind: pattern\n---\n\n# Pre\n\nWrites, then checks.\n\n" +
	"### Slots\n\n- `writer`\n- `checker`\n\n### Requires\n\n- Pattern instance receives:\n    topic: string     -- what to write about\n\n" +
	"### Delegation\n\n```prose\nlet draft = call writer\n  topic: topic\nlet verdict = call checker\n  draft: draft\n" +
	"if the draft reads well to a newcomer and cites its sources:\n  return draft\nreturn verdict\n```\n"

const preflightFunction = "---\nname: author\nkind: function\n---\n\n# Author\n\n### Parameters\n\n- `request` (string): what to write\n\n" +
	"### Returns\n\n- `text` (string): the text\n\n### Execution\n\n```prose\nlet triage = call triager\n  request: request\n" +
	"if triage has blocking missing decisions:\n  throw \"unresolved\"\nreturn call writer\n  triage: triage\n```\n\n" +
	"## triager\n\n### Parameters\n\n- `request`: what\n\n### Returns\n\n- `decisions`: what\n\n" +
	"## writer\n\n### Parameters\n\n- `triage`: what\n\n### Returns\n\n- `text`: the text\n"

// Everything that can be known before a run is reported before it starts,
// in one report: a missing input, a program not in PATH, and a condition
// only a model can judge with no model configured; nothing is called.
func TestPreflightOneReport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pre.prose.md")
	if err := os.WriteFile(path, []byte(preflightPattern), 0o644); err != nil {
		t.Fatal(err)
	}
	called := filepath.Join(dir, "called")
	b := bindtest.Must("slot:writer=exec:touch "+called, "slot:checker=exec:prose-no-such-program-here --strict")
	_, err := Run(context.Background(), RunOptions{Path: path, Bindings: *b,
		Env: &bind.Env{Dir: dir, Nested: callgraph.NestedSpec, LookPath: exec.LookPath}})
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v, want one usage report", err)
	}
	for _, want := range []string{
		`missing required input "topic"`,
		"the program prose-no-such-program-here is not in PATH",
		`pre.prose.md:27:4: condition "the draft reads well to a newcomer and cites its sources" needs a model to judge, and none is configured`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report %q lacks %q", err, want)
		}
	}
	if len(ue.Problems) != 3 {
		t.Errorf("%d problems, want 3: %q", len(ue.Problems), ue.Problems)
	}
	if _, err := os.Stat(called); err == nil {
		t.Error("a service was called before the report")
	}
	// builtins and programs in PATH pass; without LookPath nothing is looked up
	for _, cmd := range []string{"exit 3", "echo x", "sh -c true", "X=1 prose-no-such", "$HOME/x"} {
		if err := checkProgramWord(cmd); err != nil {
			t.Errorf("exec:%s: %v", cmd, err)
		}
	}
}

func checkProgramWord(cmd string) error {
	_, err := (&bind.Env{LookPath: exec.LookPath}).Service(&bind.Slot{Name: "s", Path: "s", Kind: bind.KindExec, Arg: cmd})
	return err
}

// A function's Execution whose condition needs a model is refused before
// its first call when none is configured (it used to fail at the
// condition, after the calls before it ran).
func TestPreflightContractCondition(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "author.prose.md")
	if err := os.WriteFile(path, []byte(preflightFunction), 0o644); err != nil {
		t.Fatal(err)
	}
	called := filepath.Join(dir, "called")
	b := bindtest.Must("slot:triager=exec:touch "+called+"; echo '{\"decisions\": []}'", "slot:writer=exec:echo done", "input:request=x")
	_, err := Run(context.Background(), RunOptions{Path: path, Bindings: *b, Env: &bind.Env{Dir: dir, Nested: callgraph.NestedSpec}})
	want := `author.prose.md:21:4: condition "triage has blocking missing decisions" needs a model to judge, and none is configured (found before the run started)`
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
	if _, err := os.Stat(called); err == nil {
		t.Error("the triager was called before the report")
	}
}

// A condition only a model can judge that the run may not reach (here in
// a branch) does not stop the run; it is a warning before the run, at the
// condition.
func TestPreflightWarnsOfConditionsItMayReach(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "branch.prose.md")
	src := strings.Replace(preflightPattern, "if the draft reads well", "if draft == \"never\":\n  if the draft reads well", 1)
	src = strings.Replace(src, "  return draft\nreturn verdict", "    return draft\nreturn verdict", 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b := bindtest.Must("slot:writer=exec:echo '\"text\"'", "slot:checker=exec:echo '\"ok\"'", "input:topic=x")
	p, err := Prepare(RunOptions{Path: path, Bindings: *b, Env: &bind.Env{Dir: dir, Nested: callgraph.NestedSpec}})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, d := range p.Warnings {
		if d.Code == CodeMayNeedModel && strings.Contains(d.Message, `"the draft reads well to a newcomer and cites its sources" needs a model`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("warnings %v, want %s", p.Warnings, CodeMayNeedModel)
	}
	v, err := p.Run(context.Background())
	if err != nil || v != "ok" {
		t.Fatalf("run: %v, %v; want the branch not taken and \"ok\"", v, err)
	}
}
