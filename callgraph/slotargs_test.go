package callgraph_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
)

// A function bound to a slot takes the slot's arguments by name; one it
// does not declare was dropped and the parameter it meant ran as null,
// with exit 0. It is refused before the run when the call names the slot.
func TestSlotFunctionWithOtherParameterNamesIsRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		// the names the library's critic role had: result and task, where
		// worker-critic passes output and task_brief
		"judge.prose.md": fn("judge", "result criteria task_brif", "verdict", exe(
			"return { verdict: \"accept\" }")),
	})
	ran := filepath.Join(t.TempDir(), "ran")
	_, err := runPattern(workerCritic,
		[]string{`worker=exec:touch ` + ran + `; echo '"d"'`, "critic=" + filepath.Join(dir, "judge.prose.md")},
		map[string]string{"task_brief": "write it", "criteria": "short"}, &bind.Env{Nested: callgraph.NestedSpec})
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a usage error before the run", err)
	}
	for _, want := range []string{
		`worker-critic.prose.md:`, `call critic: `, `judge.prose.md declares no parameter "output"; its parameters are result, criteria, task_brif`,
		`declares no parameter "task_brief" (did you mean "task_brif"?)`,
		`requires the parameter "result", which the call does not pass`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if fileExists(ran) {
		t.Error("the worker ran before the binding was refused")
	}
}

// A list slot's element is called as `call delegate` in a loop: its
// arguments are seen at the call, where a mismatch is a usage error that
// fallback-chain does not take for a failed attempt.
func TestSlotFunctionArgumentsCheckedAtTheCall(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"drafter.prose.md": "---\nname: drafter\nkind: function\n---\n\n### Parameters\n\n- `topic`: what to write about, optional\n\n### Returns\n\n- `draft`: the draft\n\n" +
			exe(`return { draft: "a draft" }`),
	})
	d := filepath.Join(dir, "drafter.prose.md")
	v, err := runPattern(filepath.Join("..", "std", "patterns", "fallback-chain.prose.md"),
		[]string{"chain=" + d, `chain=exec:echo '"second"'`},
		map[string]string{"task_brief": "owls"}, &bind.Env{Nested: callgraph.NestedSpec})
	var de *delegation.Error
	if !errors.As(err, &de) || de.Kind != delegation.KindUsage {
		t.Fatalf("got %v (value %v), want a usage error", err, v)
	}
	if !strings.Contains(err.Error(), `usage error: call 'chain[0]': `) || !strings.Contains(err.Error(), `drafter.prose.md declares no parameter "task_brief"; its parameters are topic`) {
		t.Errorf("message: %v", err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// A callee bound with --slot to another function than the one its name
// resolves to: lint checked the call against the resolved one, so the
// bound one's parameters are checked at the call.
func TestCalleeBoundToAnotherFunctionChecksItsParameters(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"review.prose.md": fn("review", "draft bar", "verdict", exe("let e = call critic\n  result: draft\n  criteria: bar\nreturn e.verdict")+node("critic", "result criteria", "verdict")),
	})
	env, _ := renderEnv(t)
	v, err := runContract(t, filepath.Join(dir, "review.prose.md"), []string{"critic=std/roles/critic.prose.md"}, map[string]string{"draft": "d", "bar": "b"}, env)
	var de *delegation.Error
	if !errors.As(err, &de) || de.Kind != delegation.KindUsage {
		t.Fatalf("got %v %v, want a usage error", v, err)
	}
	if !strings.Contains(err.Error(), `critic.prose.md declares no parameter "result"; its parameters are output, criteria, task_brief`) {
		t.Errorf("message: %v", err)
	}
}
