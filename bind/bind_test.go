package bind_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/bind/bindtest"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

const bindSpec = `---
name: bindme
kind: pattern
---

# Bind Me

A spec for binding tests.

### Slots

- ` + "`advancer`" + ` (primary)
  - requires: task_brief
  - ensures: a step
- ` + "`candidates`" + `
  - requires: task_brief
  - ensures: an answer

### Config

- ` + "`max_steps`" + ` (integer, default: 5): budget
- ` + "`threshold`" + ` (number, default: 0.5): bar
- ` + "`strict`" + ` (boolean, default: false): mode
- ` + "`criteria`" + ` (string, default: none): rubric
- ` + "`weights`" + ` (object, default: none): weights

### Requires

- Pattern instance receives:
    advancer: string          -- the service
    candidates: string[]      -- the services to try
    task_brief: string        -- the goal
    max_steps: number         -- (optional, default 5)
    history: any[]            -- (optional, default []) earlier steps
    tags: string[]            -- (optional) labels
    note: string              -- (optional) a remark

### Ensures

- result: what happened

### Delegation

` + "```prose" + `
let step = call advancer
  task_brief: task_brief
for c in candidates:
  call c
    task_brief: task_brief
return { result: step }
` + "```" + `
`

func parseBindSpec(t *testing.T) *spec.Spec {
	t.Helper()
	sp, diags := spec.Parse("bindme.prose.md", []byte(bindSpec))
	if diags.HasErrors() {
		t.Fatalf("fixture has errors:\n%s", diags)
	}
	return sp
}

var okSlots = []string{"slot:advancer=exec:adv", "slot:candidates=exec:a", "slot:candidates=exec:b", "input:task_brief=go"}

func TestBindTypesAndDefaults(t *testing.T) {
	sp := parseBindSpec(t)
	in, err := bind.Spec(sp, bindtest.Must(append(okSlots,
		"config:max_steps=3", "config:threshold=0.75", "config:strict=true",
		`config:weights={"a": 1, "b": 2.5}`, `input:tags=["x","y"]`)...), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := in.Globals()
	checks := map[string]string{
		"max_steps": "3", "threshold": "0.75", "strict": "true", "criteria": "null",
		"weights": `{"a":1,"b":2.5}`, "tags": `["x","y"]`, "history": "[]", "note": "null",
		"task_brief": `"go"`, "advancer": `"advancer"`, "candidates": `["candidates[0]","candidates[1]"]`,
	}
	for name, want := range checks {
		raw, err := delegation.ToJSON(g[name])
		if err != nil || string(raw) != want {
			t.Errorf("%s = %s (%v), want %s", name, raw, err, want)
		}
	}
	if _, ok := g["max_steps"].(int64); !ok {
		t.Errorf("max_steps is %T, want int64", g["max_steps"])
	}
	if s, ok := g["advancer"].(*service.Exec); !ok || s.Command != "adv" {
		t.Errorf("advancer = %#v", g["advancer"])
	}
}

func TestBindListSlotFromOneBinding(t *testing.T) {
	in, err := bind.Spec(parseBindSpec(t), bindtest.Must("slot:advancer=exec:adv", "slot:candidates=exec:a", "input:task_brief=go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := in.Slots["candidates"].(*delegation.List)
	if !ok || l.Len() != 1 {
		t.Fatalf("candidates = %#v, want a list of one service", in.Slots["candidates"])
	}
}

func TestGlobalsAreFreshCopies(t *testing.T) {
	in, err := bind.Spec(parseBindSpec(t), bindtest.Must(okSlots...), nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Globals()["history"].(*delegation.List).Append("x")
	if n := in.Globals()["history"].(*delegation.List).Len(); n != 0 {
		t.Errorf("a run's append leaked into the next run's default: %d elements", n)
	}
}

func TestBindInputJSONAndConfigNamedInputs(t *testing.T) {
	in, err := bind.Spec(parseBindSpec(t), bindtest.Must("slot:advancer=exec:adv", "slot:candidates=exec:a",
		`json:{"task_brief": "from json", "max_steps": 2, "history": [1]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Config["max_steps"] != int64(2) || in.Inputs["task_brief"] != "from json" {
		t.Errorf("config %v inputs %v", in.Config, in.Inputs)
	}
}

func TestBindProblems(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  []string
	}{
		{"unknown slot", append(okSlots, "slot:advancr=exec:x"), []string{`unknown slot "advancr" (did you mean "advancer"?)`}},
		{"unbound slot", []string{"slot:candidates=exec:a", "input:task_brief=go"}, []string{`slot "advancer" is not bound: add --slot advancer=exec:COMMAND`}},
		{"unknown config", append(okSlots, "config:max_step=2"), []string{`unknown config key "max_step" (did you mean "max_steps"?)`}},
		{"unknown input", append(okSlots, "input:task_brif=x"), []string{`unknown input "task_brif" (did you mean "task_brief"?)`}},
		{"no close name", append(okSlots, "input:zzz=x"), []string{`unknown input "zzz" (known: task_brief, history, tags, note, max_steps`}},
		{"missing input", okSlots[:3], []string{`missing required input "task_brief": add --input task_brief=VALUE`}},
		{"bad integer", append(okSlots, "config:max_steps=three"), []string{`--config max_steps: want an integer, got "three"`}},
		{"fractional integer", append(okSlots, "config:max_steps=2.5"), []string{`--config max_steps: want an integer, got number 2.5`}},
		{"bad boolean", append(okSlots, "config:strict=maybe"), []string{`--config strict: want a boolean`}},
		{"bad object", append(okSlots, "config:weights=[1]"), []string{`--config weights: want an object, got list [1]`}},
		{"bad list element", append(okSlots, `input:tags=["a", 2]`), []string{`--input tags: element 1: want a string, got integer 2`}},
		{"bad json", append(okSlots, `json:{"note": `), []string{`--input-json: invalid JSON`}},
		{"json not object", append(okSlots, `json:[1]`), []string{`--input-json: want a JSON object of inputs, got list`}},
		{"input is a slot", append(okSlots, "input:advancer=x"), []string{`input "advancer" is a slot: bind it with --slot advancer=...`}},
		{"bad binding", append(okSlots[1:], "slot:advancer=./adv.sh"), []string{`--slot advancer: cannot tell what "./adv.sh" is: use exec:COMMAND`}},
		{"empty exec", append(okSlots[1:], "slot:advancer=exec:"), []string{`--slot advancer: exec: needs a command`}},
		{"llm unavailable", append(okSlots[1:], "slot:advancer=llm"), []string{`--slot advancer: advancer=llm: model-backed slots are not available here`}},
		{"dotted on program", append(okSlots, "slot:advancer.inner=exec:x"), []string{`advancer is bound to a program; dotted settings (advancer.NAME=...) only apply to a nested spec`}},
		{"dotted unknown root", append(okSlots, "config:nope.max=1"), []string{`unknown config key "nope.max": "nope" is not a slot`}},
		{"input twice", append(okSlots, `json:{"note": "a"}`, "input:note=b"), []string{`input "note" given twice (--input and --input-json)`}},
		{"config twice", append(okSlots, "config:max_steps=2", "input:max_steps=3"), []string{`"max_steps" is set twice: with --config and with --input`}},
		{"non-list slot twice", append(okSlots, "slot:advancer=exec:again"), []string{`slot "advancer" is bound 2 times, but it is one service, not a list: the Delegation calls it directly (call advancer at line 45); bind it once`}},
		{"several at once", []string{"slot:advancr=exec:x", "config:max_step=1"}, []string{"unknown slot", "unknown config key", `slot "advancer" is not bound`, `slot "candidates" is not bound`, "missing required input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bind.Spec(parseBindSpec(t), bindtest.Must(tt.flags...), nil)
			var ue *bind.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a *bind.UsageError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%s\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestNestedPrefixInMessages(t *testing.T) {
	env := (&bind.Env{}).Child("target")
	_, err := bind.Spec(parseBindSpec(t), bindtest.Must("slot:candidates=exec:a", "config:max_step=1"), env)
	for _, w := range []string{`slot "target.advancer" is not bound`, `unknown config key "target.max_step" (did you mean "target.max_steps"?)`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

func TestParseAssignments(t *testing.T) {
	got, err := bind.ParseAssignments("--slot", []string{"a=exec:x=1", "b="})
	if err != nil || len(got) != 2 || got[0].Value != "exec:x=1" || got[1].Value != "" {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := bind.ParseAssignments("--slot", []string{"novalue"}); err == nil || !strings.Contains(err.Error(), "want NAME=VALUE") {
		t.Errorf("err = %v", err)
	}
}

// A config key without a default whose inputs line is not optional must be
// given: the run cannot mean anything without it.
func TestBindRequiredConfig(t *testing.T) {
	src := strings.Replace(bindSpec, "### Requires\n", "", 1)
	src = strings.Replace(src, "- `weights`", "- `dimension` (string, default: none): what is compared\n- `weights`", 1)
	src = strings.Replace(src, "    note: string", "    dimension: string         -- what is compared\n    note: string", 1)
	src = strings.Replace(src, "- Pattern instance receives:", "### Requires\n\n- Pattern instance receives:", 1)
	sp, diags := spec.Parse("bindme.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("fixture has errors:\n%s", diags)
	}
	_, err := bind.Spec(sp, bindtest.Must(okSlots...), nil)
	if err == nil || !strings.Contains(err.Error(), `missing required config "dimension": add --config dimension=VALUE`) {
		t.Fatalf("err = %v, want the missing config named", err)
	}
	for _, extra := range []string{"config:dimension=clarity", "input:dimension=clarity"} {
		in, err := bind.Spec(sp, bindtest.Must(append(okSlots, extra)...), nil)
		if err != nil {
			t.Fatalf("%s: %v", extra, err)
		}
		if in.Config["dimension"] != "clarity" {
			t.Errorf("%s: dimension = %v", extra, in.Config["dimension"])
		}
	}
	// criteria has no default either, but nothing says it is required.
	if _, err := bind.Spec(parseBindSpec(t), bindtest.Must(okSlots...), nil); err != nil {
		t.Errorf("optional config without default: %v", err)
	}
}

func TestBindChecksProgramPaths(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plain.sh"), []byte("echo 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.sh"), []byte("echo 1\n"), 0o755)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "crlf.sh"), []byte("#!/bin/sh\r\necho 1\r\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "gone.sh"), []byte("#!/no/such/interp -x\necho 1\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "envgone.sh"), []byte("#!/usr/bin/env no-such-interp-zz\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "envok.sh"), []byte("#!/usr/bin/env sh\necho 1\n"), 0o755)
	env := &bind.Env{Dir: dir}
	tests := []struct{ cmd, want string }{
		{"./plain.sh --fast", "--slot advancer: ./plain.sh is not executable: run chmod +x ./plain.sh, or bind exec:sh ./plain.sh --fast"},
		{filepath.Join(dir, "plain.sh"), "is not executable"},
		{"./sub", "--slot advancer: ./sub is a directory, not a program"},
		{"./ok.sh", ""},
		{"./crlf.sh", "--slot advancer: ./crlf.sh has Windows line endings (its #! line ends in \\r): convert it, e.g. with dos2unix ./crlf.sh"},
		{"./gone.sh", "--slot advancer: ./gone.sh: its interpreter /no/such/interp does not exist (see its #! line)"},
		{"./envgone.sh", "--slot advancer: ./envgone.sh: its interpreter no-such-interp-zz is not in PATH (see its #! line)"},
		{"./envok.sh", ""},
		{"./not-yet-there.sh", ""}, // an earlier step may create it; the call reports it
		{"sh ./plain.sh", ""},      // looked up in PATH
		{"X=1 ./plain.sh", ""},     // shell syntax first: not checked
		{"'./plain.sh' a", ""},     // quoted: not checked
	}
	for _, tt := range tests {
		flags := append([]string{"slot:advancer=exec:" + tt.cmd}, okSlots[1:]...)
		_, err := bind.Spec(parseBindSpec(t), bindtest.Must(flags...), env)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.cmd, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want %q", tt.cmd, err, tt.want)
		}
	}
}

func TestBindRepeatedListValues(t *testing.T) {
	const listSpec = "---\nname: lists\nkind: pattern\n---\n\n# Lists\n\nTakes lists.\n\n### Slots\n\n- `svc`\n  - requires: xs\n\n" +
		"### Config\n\n- `limits` (integer[], default: none): caps\n- `mode` (string, default: \"a\"): a mode\n\n" +
		"### Requires\n\n- Pattern instance receives:\n    svc: string -- the service\n    xs: string[] -- words\n    n: integer -- a count\n\n" +
		"### Delegation\n\n```prose\nreturn call svc\n  xs: xs\n  n: n\n  limits: limits\n  mode: mode\n```\n"
	sp, diags := spec.Parse("lists.prose.md", []byte(listSpec))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	in, err := bind.Spec(sp, bindtest.Must("slot:svc=exec:x", "input:xs=a b", "input:xs=[c]", "input:xs=3", "input:n=2",
		"config:limits=1", "config:limits=20"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"xs": `["a b","[c]","3"]`, "limits": "[1,20]", "n": "2"} {
		g := in.Globals()[name]
		if raw, _ := delegation.ToJSON(g); string(raw) != want {
			t.Errorf("%s = %s, want %s", name, raw, want)
		}
	}
	one, err := bind.Spec(sp, bindtest.Must("slot:svc=exec:x", "input:xs=solo", "input:n=2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := delegation.ToJSON(one.Globals()["xs"]); string(raw) != `["solo"]` {
		t.Errorf("a single list value: xs = %s, want [\"solo\"]", raw)
	}
	_, err = bind.Spec(sp, bindtest.Must("slot:svc=exec:x", "input:xs=[a", "input:n=2", "input:n=3", "config:mode=a", "config:mode=b",
		"config:limits=1", "config:limits=x"), nil)
	for _, want := range []string{
		`--input n: given 2 times, but it is an integer, not a list: give it once`,
		`--config mode: given 2 times, but it is a string, not a list: give it once`,
		`--config limits: element 1: want an integer, got "x"`,
		`--input xs: want a JSON array such as ["a", "b"] (or one element per repeated flag), got "[a"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error:\n%v\nlacks %q", err, want)
		}
	}
}

func TestBindBadInputJSONHidesMissingInputs(t *testing.T) {
	_, err := bind.Spec(parseBindSpec(t), bindtest.Must("slot:advancer=exec:a", "slot:candidates=exec:b", `json:{"task_brief": `), nil)
	if err == nil || !strings.Contains(err.Error(), "--input-json: invalid JSON") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "missing required input") {
		t.Errorf("an input the unreadable JSON may hold is reported missing:\n%v", err)
	}
}

const durationSpec = `---
name: waits
kind: pattern
---

# Waits

Calls a worker under a timeout taken from config.

### Slots

- ` + "`worker`" + `

### Config

- ` + "`wait`" + ` (duration, default: 2s): how long one call may take

### Ensures

- result: the answer

### Delegation

` + "```prose" + `
let r = call worker
  task: "x"
  timeout wait
return { result: r }
` + "```" + `
`

// A config key declared as a duration takes 500ms/30s/2m or seconds and
// gives the duration value a timeout clause expects; the default too.
func TestBindDurationConfig(t *testing.T) {
	sp, diags := spec.Parse("waits.prose.md", []byte(durationSpec))
	if diags.HasErrors() {
		t.Fatalf("fixture has errors:\n%s", diags)
	}
	for given, want := range map[string]time.Duration{"": 2 * time.Second, "1m30s": 90 * time.Second, "1.5": 1500 * time.Millisecond, "3": 3 * time.Second} {
		flags := []string{"slot:worker=exec:w"}
		if given != "" {
			flags = append(flags, "config:wait="+given)
		}
		in, err := bind.Spec(sp, bindtest.Must(flags...), nil)
		if err != nil {
			t.Fatalf("wait=%q: %v", given, err)
		}
		if got := in.Globals()["wait"]; got != want {
			t.Errorf("wait=%q gives %#v, want %v", given, got, want)
		}
	}
	for _, bad := range []string{"soon", "-3s"} {
		_, err := bind.Spec(sp, bindtest.Must("slot:worker=exec:w", "config:wait="+bad), nil)
		if err == nil || !strings.Contains(err.Error(), "want a duration such as 500ms, 30s or 2m") {
			t.Errorf("wait=%q: err = %v", bad, err)
		}
	}
}

const rangesSpec = `---
name: ranges
kind: pattern
---

# Ranges

Repeats a call under config-set bounds.

### Slots

- ` + "`worker`" + `

### Config

- ` + "`max_rounds`" + ` (integer, default: 3): how many rounds
- ` + "`tries`" + ` (integer, default: DEFAULT_TRIES): retries per call
- ` + "`wait`" + ` (duration, default: 2s): how long one call may take
- ` + "`label`" + ` (integer, default: 1): shadowed below

### Ensures

- result: the answers

### Delegation

` + "```prose" + `
let label = 0
let rs = repeat max_rounds:
  call worker
    task: "x"
    retries tries
    timeout wait
return { result: rs }
` + "```" + `
`

// TestBindConfigRanges: a config value that its use would refuse at run
// time (a negative loop count or retry budget, a zero timeout) is refused
// at bind time, before any service runs, naming the use's position; the
// default too. A key the program rebinds is not checked by its uses.
func TestBindConfigRanges(t *testing.T) {
	load := func(defaultTries string) *spec.Spec {
		src := strings.Replace(rangesSpec, "DEFAULT_TRIES", defaultTries, 1)
		sp, diags := spec.Parse("ranges.prose.md", []byte(src))
		if diags.HasErrors() {
			t.Fatalf("fixture has errors:\n%s", diags)
		}
		return sp
	}
	tests := []struct {
		tries  string
		config []string
		want   string // "" for no error
	}{
		{"1", nil, ""},
		{"1", []string{"config:max_rounds=0", "config:wait=0.5"}, ""},
		{"1", []string{"config:max_rounds=-1"}, "--config max_rounds=-1: max_rounds is the repeat count at ranges.prose.md:29:17, which must be a non-negative integer"},
		{"1", []string{"config:tries=-2"}, "--config tries=-2: tries is retries at ranges.prose.md:32:13, which must be a non-negative integer"},
		{"1", []string{"config:wait=0s"}, `--config wait=0s: wait is the timeout at ranges.prose.md:33:13, which must be a positive duration`},
		{"-1", nil, `config "tries": its default -1 is retries at ranges.prose.md:32:13, which must be a non-negative integer; set --config tries=VALUE`},
		{"-1", []string{"config:tries=2"}, ""},
		{"1", []string{"config:label=-5"}, ""},
	}
	for _, tt := range tests {
		flags := append([]string{"slot:worker=exec:w"}, tt.config...)
		_, err := bind.Spec(load(tt.tries), bindtest.Must(flags...), nil)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("tries default %s, %v: %v", tt.tries, tt.config, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("tries default %s, %v: err = %v\nwant %q", tt.tries, tt.config, err, tt.want)
		}
	}
}

// Each problem says its kind and the name it is about, for a program to
// read without parsing the sentence.
func TestBindProblemKinds(t *testing.T) {
	tests := []struct {
		flags []string
		kind  bind.ProblemKind
		name  string
	}{
		{append(okSlots, "slot:advancr=exec:x"), bind.UnknownSlot, "advancr"},
		{[]string{"slot:candidates=exec:a", "input:task_brief=go"}, bind.UnboundSlot, "advancer"},
		{append(okSlots, "config:max_step=2"), bind.UnknownConfig, "max_step"},
		{append(okSlots, "input:task_brif=x"), bind.UnknownInput, "task_brif"},
		{okSlots[:3], bind.MissingInput, "task_brief"},
		{append(okSlots, "config:max_steps=three"), bind.BadValue, "max_steps"},
		{append(okSlots, "config:max_steps=2", "input:max_steps=3"), bind.GivenTwice, "max_steps"},
		{append(okSlots[1:], "slot:advancer=./adv.sh"), bind.BadBinding, "advancer"},
	}
	for _, tt := range tests {
		_, err := bind.Spec(parseBindSpec(t), bindtest.Must(tt.flags...), nil)
		var ue *bind.UsageError
		if !errors.As(err, &ue) || len(ue.Problems) != 1 {
			t.Errorf("%v: err = %v, want one problem", tt.flags, err)
			continue
		}
		if p := ue.Problems[0]; p.Kind != tt.kind || p.Name != tt.name {
			t.Errorf("%v: problem %s %q (%s), want %s %q", tt.flags, p.Kind, p.Name, p.Msg, tt.kind, tt.name)
		}
	}
}

// A default that does not fit its declared type is refused when it would
// be used (lint reports it too, spec/bad-default), not given to the run
// as its text ("1/2" for a number); a value given for it is used.
func TestBindRefusesADefaultOfAnotherType(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `ratio` (number, default: 1/2): a ratio\n\n### Returns\n\n- `r`: it\n\n### Execution\n\n```prose\nreturn { r: ratio }\n```\n"
	sp, _ := spec.Parse("f.prose.md", []byte(src))
	_, err := bind.Spec(sp, bindtest.Must(), nil)
	if err == nil || !strings.Contains(err.Error(), `the default of "ratio" does not fit its declared type: want a number`) {
		t.Fatalf("err = %v, want the default refused", err)
	}
	in, err := bind.Spec(sp, bindtest.Must("input:ratio=0.5"), nil)
	if err != nil || in.Inputs["ratio"] != 0.5 {
		t.Fatalf("given: %v, %v", in, err)
	}
}
