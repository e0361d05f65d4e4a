package run_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/run"
)

func TestParseBinding(t *testing.T) {
	for text, want := range map[string]run.Binding{
		"exec:./a.sh x":    run.Exec{Command: "./a.sh x"},
		"llm":              run.Model{},
		"llm:big":          run.Model{Name: "big"},
		"std/roles/critic": run.Spec{Path: "std/roles/critic"},
		"sub/x.prose.md":   run.Spec{Path: "sub/x.prose.md"},
		" exec: ./b.sh ":   run.Exec{Command: "./b.sh"},
	} {
		got, err := run.ParseBinding(text)
		if err != nil || got != want {
			t.Errorf("ParseBinding(%q) = %#v, %v; want %#v", text, got, err, want)
		}
		if again, _ := run.ParseBinding(got.Text()); again != got {
			t.Errorf("%q: Text %q reads back as %#v", text, got.Text(), again)
		}
	}
	for _, bad := range []string{"go:review", "exec:", "advance.sh", ""} {
		if b, err := run.ParseBinding(bad); err == nil {
			t.Errorf("ParseBinding(%q) = %#v, want an error", bad, b)
		}
	}
}

// A Func binding is journaled by its name; a resume given the function
// again in Options.Funcs answers the journaled calls and runs the rest.
func TestFuncBindingResumes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"twice.prose.md": "---\nname: twice\nkind: pattern\n---\n\n# Twice\n\nCalls w twice.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nlet a = call worker\n  n: 1\nlet b = call worker\n  n: 2\nreturn [a, b]\n```\n"})
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	fail := errors.New("stopped")
	w := run.Func{Name: "w", Fn: func(_ context.Context, args map[string]any) (any, error) {
		calls++
		if calls == 2 {
			cancel()
			return nil, fail
		}
		return map[string]any{"got": args["n"]}, nil
	}}
	req := run.Request{Spec: "twice.prose.md", Dir: dir, Slots: []run.Slot{{Name: "worker", Binding: w}}}
	o := run.Options{RunDir: filepath.Join(dir, "runs")}
	res, err := run.Local{}.Run(ctx, req, o)
	if err == nil || res == nil || res.RunID == "" {
		t.Fatalf("first run: %v, %+v", err, res)
	}
	calls = 10
	o.Funcs = []run.Func{w}
	res, err = run.Resume(context.Background(), res.RunID, o)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := res.JSON()
	if string(out) != `[{"got":1},{"got":2}]` || res.Answered != 1 {
		t.Errorf("resumed to %s with %d answered, want both values and the first answered from the journal", out, res.Answered)
	}
	o.Funcs = nil
	if _, err := run.Resume(context.Background(), res.RunID, o); !strings.Contains(fmt.Sprint(err), `no in-process service "w"`) {
		t.Errorf("a resume without the function: %v", err)
	}
}

// A replay of a run that bound a Func needs no function: the journal
// answers its calls, and none runs.
func TestFuncBindingReplaysWithoutIt(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"once.prose.md": "---\nname: once\nkind: pattern\n---\n\n# Once\n\nCalls w.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\nlet a = call worker\n  n: 1\nreturn a\n```\n"})
	calls := 0
	w := run.Func{Name: "w", Fn: func(_ context.Context, args map[string]any) (any, error) {
		calls++
		return map[string]any{"got": args["n"]}, nil
	}}
	o := run.Options{RunDir: filepath.Join(dir, "runs")}
	res, err := run.Local{}.Run(context.Background(), run.Request{Spec: "once.prose.md", Dir: dir, Slots: []run.Slot{{Name: "worker", Binding: w}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Replay(context.Background(), res.RunID, o)
	if err != nil {
		t.Fatalf("replay without the function: %v", err)
	}
	out, _ := rep.JSON()
	if string(out) != `{"got":1}` || rep.Answered != 1 || calls != 1 {
		t.Errorf("replayed to %s, %d answered, the function ran %d times; want the journaled value, 1, 1", out, rep.Answered, calls)
	}
}
