package callgraph_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/spec"
)

// innerSpec is a nested spec whose slot svc receives task_brief and level;
// `exec:cat` bound to svc echoes what it got.
const innerSpec = "---\nname: inner\nkind: pattern\n---\n\n# Inner\n\nEchoes.\n\n" +
	"### Slots\n\n- `svc`\n  - requires: task_brief, level\n  - ensures: anything\n\n" +
	"### Config\n\n- `level` (integer, default: 1): a level\n\n" +
	"### Requires\n\n- Pattern instance receives:\n    svc: string -- the service\n    task_brief: string -- the brief\n    level: integer -- (optional, default 1) a level\n\n" +
	"### Ensures\n\n- result: what svc returned\n\n" +
	"### Delegation\n\n```prose\nlet got = call svc\n  task_brief: task_brief\n  level: level\nreturn { result: got }\n```\n"

// outerSpec calls its slot `inner` with the given argument lines.
func outerSpec(args string) string {
	return "---\nname: outer\nkind: pattern\n---\n\n# Outer\n\nCalls inner.\n\n" +
		"### Slots\n\n- `inner`\n\n" +
		"### Delegation\n\n```prose\nlet r = call inner\n" + args + "return { result: r }\n```\n"
}

// runNested runs outer (with the given call arguments) with inner bound
// to innerSpec and inner.svc to `exec:cat`.
func runNested(t *testing.T, args string, slots, config []string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "inner.prose.md"), filepath.Join(dir, "outer.prose.md")
	if err := os.WriteFile(in, []byte(innerSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte(outerSpec(args)), 0o644); err != nil {
		t.Fatal(err)
	}
	b := bind.Settings{}
	for _, s := range append([]string{"inner=" + in, "inner.svc=exec:cat"}, slots...) {
		k, v, _ := strings.Cut(s, "=")
		b.Slots = append(b.Slots, bind.Assignment{Name: k, Value: v})
	}
	for _, c := range config {
		k, v, _ := strings.Cut(c, "=")
		b.Config = append(b.Config, bind.Assignment{Name: k, Value: v})
	}
	v, err := runhost.Run(context.Background(), runhost.RunOptions{Path: out, Bindings: b, Env: &bind.Env{Nested: callgraph.NestedSpec}})
	if err != nil {
		return "", err
	}
	data, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), nil
}

func TestNestedArguments(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		config     []string
		want       string
	}{
		{"inputs and config from arguments, others ignored",
			"  task_brief: \"hi\"\n  level: 5\n  prompt: \"for a model\"\n", nil,
			`{"result":{"result":{"task_brief":"hi","level":5}}}`},
		{"config default",
			"  task_brief: \"hi\"\n", nil,
			`{"result":{"result":{"task_brief":"hi","level":1}}}`},
		{"explicit --config wins over the argument",
			"  task_brief: \"hi\"\n  level: 5\n", []string{"inner.level=7"},
			`{"result":{"result":{"task_brief":"hi","level":7}}}`},
		{"an undeclared object argument is unpacked, named arguments first",
			"  level: 3\n  settings: { task_brief: \"from object\", level: 9 }\n", nil,
			`{"result":{"result":{"task_brief":"from object","level":3}}}`},
		{"a number given for an integer is typed",
			"  task_brief: \"hi\"\n  level: 4.0\n", nil,
			`{"result":{"result":{"task_brief":"hi","level":4}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runNested(t, tc.args, nil, tc.config)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestNestedMissingInputFailsTheCall(t *testing.T) {
	_, err := runNested(t, "  level: 2\n", nil, nil)
	var ue *bind.UsageError
	if err == nil || !strings.Contains(err.Error(), `(bound to inner) requires input "task_brief", but the call passes only level`) || errors.As(err, &ue) {
		t.Errorf("error %v: want a run-time error naming the slot, the missing input and the arguments passed", err)
	}
}

func TestNestedBindingErrors(t *testing.T) {
	for _, tc := range []struct {
		slots, config []string
		want          string
	}{
		{[]string{"inner.svx=exec:cat"}, nil, `unknown slot "inner.svx" (did you mean "inner.svc"?)`},
		{nil, []string{"inner.levl=2"}, `unknown config key "inner.levl" (did you mean "inner.level"?)`},
		{nil, []string{"inner.level=high"}, "inner.level"},
	} {
		_, err := runNested(t, "  task_brief: \"hi\"\n", tc.slots, tc.config)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("slots %v config %v: error %v, want %q", tc.slots, tc.config, err, tc.want)
		}
	}
}

func TestNestedDepthLimitMessage(t *testing.T) {
	b := &bind.Slot{Name: "x", Path: "a.b", Value: "deep.prose.md", Kind: bind.KindSpec, Arg: "deep.prose.md",
		Env: &bind.Env{Depth: callgraph.MaxNestingDepth}}
	_, err := callgraph.NestedSpec(b)
	if err == nil || !strings.Contains(err.Error(), "binding deep.prose.md would nest specs 17 deep; the limit is 16") {
		t.Errorf("error %v", err)
	}
}

func TestNestedPrefix(t *testing.T) {
	if got := (&delegation.CallRequest{Path: delegation.MustParsePath("L5/2"), Attempt: 1}).NestedScope(); got.Key() != "L5/2" {
		t.Errorf("first attempt prefix %q", got)
	}
	if got := (&delegation.CallRequest{Path: delegation.MustParsePath("L5/2"), Attempt: 3}).NestedScope(); got.Key() != "L5/2#3" {
		t.Errorf("third attempt prefix %q", got)
	}
}

// seen records the ids the prefixed hooks pass on.
type seen struct {
	mu  sync.Mutex
	ids []string
}

func (s *seen) add(id string) {
	s.mu.Lock()
	s.ids = append(s.ids, id)
	s.mu.Unlock()
}

func (s *seen) Call(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	s.add("call " + req.Path.Key())
	return nil, nil
}

func (s *seen) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	s.add("judge " + j.Path.Key())
	return delegation.Verdict{}, nil
}

func (s *seen) Record(ev *delegation.Event) { s.add("event " + ev.Path.Key()) }

type seenRuntime struct {
	delegation.Runtime
	s *seen
}

func (r seenRuntime) Group(ctx context.Context, id delegation.Path, n, limit int, fn func(context.Context, int) (bool, error), _ func(delegation.GroupOutcome)) delegation.GroupOutcome {
	r.s.add("first " + id.Key())
	return delegation.GroupOutcome{Winner: -1, Failed: -1}
}

func (r seenRuntime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	r.s.add("deadline")
	return context.WithTimeout(ctx, d)
}

// A nested run's ids carry its call's scope by construction: the service
// runs the spec with the request's host under req.NestedScope(), and the
// evaluator puts the scope in front of every call, judgment, event and
// loop id; the host's hooks and limits are the outer run's.
func TestNestedScopeByConstruction(t *testing.T) {
	s := &seen{}
	sp, diags := spec.Parse("inner.prose.md", []byte(scopedInnerSpec))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	inst, err := bind.Spec(sp, &bind.Settings{Slots: []bind.Assignment{{Name: "svc", Value: "exec:true"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := &callgraph.NestedService{Name: "inner", Path: "inner", Spec: sp, Instance: inst}
	host := &delegation.Host{Caller: s, Judge: s, Recorder: s, Runtime: seenRuntime{delegation.DefaultRuntime(), s}, MaxSteps: 7}
	req := &delegation.CallRequest{Path: delegation.MustParsePath("L1/2"), Attempt: 2, Host: host, Args: delegation.NewObject()}
	if _, err := n.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.ids, "; ")
	for _, want := range []string{"call L1/2#2>L", "judge L1/2#2>L", "first L1/2#2>L", "event L1/2#2>L"} {
		if !strings.Contains(got, want) {
			t.Errorf("ids %s: none starts with %q", got, want)
		}
	}
	if strings.Contains(got, " L1/2#2>L1/2") {
		t.Errorf("scope applied twice: %s", got)
	}
}

const scopedInnerSpec = `---
name: inner
kind: pattern
---

# Inner

Calls svc.

### Slots

- ` + "`svc`" + `

### Delegation

` + "```prose" + `
let r = call svc
if r says done:
  return r
let w = parallel first for x in [1]:
  return x
return w
` + "```" + `
`

// A slot bound to a spec file that cannot be read is named in the error.
func TestNestedUnreadableSpecNamesSlot(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "outer.prose.md")
	if err := os.WriteFile(out, []byte(outerSpec("  task_brief: \"hi\"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.prose.md")
	folder := filepath.Join(dir, "folder.prose.md")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		missing: "--slot inner: open " + missing,
		folder:  "--slot inner: read " + folder + ": is a directory, not a spec file",
	} {
		b := bind.Settings{Slots: []bind.Assignment{{Name: "inner", Value: path}}}
		_, err := runhost.Run(context.Background(), runhost.RunOptions{Path: out, Bindings: b, Env: &bind.Env{Nested: callgraph.NestedSpec}})
		var u *bind.UsageError
		if !errors.As(err, &u) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("err = %v, want it to start with %q", err, want)
		}
	}
}
