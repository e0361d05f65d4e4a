package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// decls builds Decls from a terse description: slots "w", "cs[]" (list),
// "w(a,b)" (precise args), "w!ensures text"; config and inputs by name;
// outputs by name, "~name" for an inferred one.
func decls(slots, config, inputs, outputs string) *check.Decls {
	d := &check.Decls{}
	pos := diag.NoPos
	for _, s := range strings.Fields(slots) {
		sl := check.Slot{Pos: pos}
		if i := strings.IndexByte(s, '!'); i >= 0 {
			s, sl.Ensures = s[:i], strings.ReplaceAll(s[i+1:], "_", " ")
		}
		if i := strings.IndexByte(s, '('); i >= 0 {
			sl.Args = strings.Split(strings.TrimSuffix(s[i+1:], ")"), ",")
			s = s[:i]
		}
		sl.Name, sl.List = strings.TrimSuffix(s, "[]"), strings.HasSuffix(s, "[]")
		d.Slots = append(d.Slots, sl)
	}
	for _, n := range strings.Fields(config) {
		name, typ, _ := strings.Cut(n, ":")
		d.Config = append(d.Config, check.Name{Name: name, Pos: pos, Type: typ})
	}
	for _, n := range strings.Fields(inputs) {
		d.Inputs = append(d.Inputs, check.Name{Name: n, Pos: pos})
	}
	for _, n := range strings.Fields(outputs) {
		d.Outputs = append(d.Outputs, check.Name{Name: strings.TrimPrefix(n, "~"), Pos: pos, Inferred: n[0] == '~'})
	}
	return d
}

type checkCase struct {
	name                           string
	slots, config, inputs, outputs string
	nodes                          string // the file's ## nodes
	code                           string
	// returnRule checks the code as a function's Execution (Decls.ReturnRule).
	returnRule bool
	// want holds "LINE:COL severity code [message fragment]" per finding,
	// in sorted order; findings on line 0 (declarations) are "0 ...".
	want []string
}

// runCheckCases checks each case's code and compares its findings,
// deduped and sorted, with want.
func runCheckCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prog, errs := syntax.ParseString("t.prose.md", tc.code)
			if len(errs) > 0 {
				t.Fatalf("parse: %v", errs)
			}
			d := decls(tc.slots, tc.config, tc.inputs, tc.outputs)
			for _, n := range strings.Fields(tc.nodes) {
				d.Nodes = append(d.Nodes, check.Name{Name: n})
			}
			d.ReturnRule = tc.returnRule
			got := check.Check(prog, d).Dedupe()
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				if err := match(got[i], w); err != nil {
					t.Errorf("finding %d: %v\ngot: %s", i, err, got[i])
				}
			}
		})
	}
}

func TestCheck(t *testing.T) {
	runCheckCases(t, checkCases())
}

// match compares d with "LINE[:COL] severity code [fragment]".
func match(d diag.Diagnostic, want string) error {
	parts := strings.SplitN(want, " ", 4)
	at := fmt.Sprintf("%d:%d", d.Line, d.Col)
	if !strings.Contains(parts[0], ":") {
		at = fmt.Sprint(d.Line)
	}
	if at != parts[0] || d.Severity.String() != parts[1] || d.Code != parts[2] {
		return fmt.Errorf("want %s", want)
	}
	if len(parts) == 4 && !strings.Contains(d.Message, parts[3]) {
		return fmt.Errorf("message lacks %q", parts[3])
	}
	return nil
}

func checkCases() []checkCase {
	var cs []checkCase
	cs = append(cs, nameCases()...)
	cs = append(cs, callCases()...)
	cs = append(cs, scopeCases()...)
	cs = append(cs, loopCases()...)
	cs = append(cs, outputCases()...)
	cs = append(cs, conditionCases()...)
	return cs
}

func nameCases() []checkCase {
	return []checkCase{
		{name: "undefined with suggestion", slots: "writer", inputs: "task_brief",
			code: "let r = call writer\n  brief: task_brif\nreturn r",
			want: []string{
				"0 warning check/unused-input 'task_brief'",
				"2:10 error check/undefined-name undefined name 'task_brif'; did you mean 'task_brief'?",
			}},
		{name: "undefined without suggestion", slots: "delegates[]", inputs: "briefs",
			code: "let rs = parallel for d, i in delegates:\n  call d\n    brief: briefs[i]\n    fallback: task_brief\nreturn rs",
			want: []string{"4:15 error check/undefined-name undefined name 'task_brief'"}},
		{name: "a literal of another language", slots: "w",
			code: "let done = True\nif done == None:\n  return 1\nreturn done",
			want: []string{
				"1:12 error check/undefined-name undefined name 'True'; the literal is written true",
				"2:12 error check/undefined-name undefined name 'None'; the literal is written null",
			}},
		{name: "undefined suggests a local", slots: "w",
			code: "let proposal = call w\nreturn propsal",
			want: []string{"2:8 error check/undefined-name did you mean 'proposal'?"}},
		{name: "assignment to undeclared", slots: "w",
			code: "feedback = call w\nreturn feedback",
			want: []string{"1:1 error check/undefined-name assignment to undeclared name 'feedback'"}},
		{name: "sequential loop names stay visible", slots: "w", inputs: "xs",
			code: "for x in xs:\n  let last = call w\n    item: x\nreturn { last: last, x: x }"},
		{name: "parallel body names are local", slots: "w", inputs: "xs",
			code: "parallel for x in xs:\n  let r = call w\n    item: x\nreturn r",
			want: []string{"4:8 error check/undefined-name undefined name 'r'"}},
		{name: "sibling branch name", slots: "w",
			code: "parallel:\n  let a = call w\n  let b = call w\n    x: a\nreturn { a, b }",
			want: []string{"4:8 error check/undefined-name undefined name 'a': it is bound by another branch of this parallel block"}},
		{name: "catch variable is bound", slots: "w",
			code: "try:\n  call w\ncatch as err:\n  return err.message",
		},
		{name: "unused config and input", slots: "w", config: "used unused both", inputs: "both lonely w",
			code: "call w\n  n: used",
			want: []string{
				"0 warning check/unused-config config 'both'",
				"0 warning check/unused-config config 'unused'",
				"0 warning check/unused-input input 'lonely'",
			}},
		{name: "names in natural conditions count as used", slots: "w", config: "criteria",
			code: "let r = call w\nif criteria says r is a failure:\n  return null\nreturn r"},
	}
}

func callCases() []checkCase {
	return []checkCase{
		{name: "call a local", slots: "w",
			code: "let x = 1\ncall x",
			want: []string{"2:6 error check/call-target call target 'x' is a variable"}},
		{name: "call config", slots: "w", config: "model",
			code: "call model",
			want: []string{"1:6 error check/call-target 'model' is a config key"}},
		{name: "call input, loop var over list slot, element of a slot", slots: "cs[]", inputs: "svc",
			code: "call svc\nfor c in cs:\n  call c\ncall cs[0]"},
		{name: "a list slot called whole", slots: "cs[]",
			code: "call cs",
			want: []string{"1:6 error check/call-target call target 'cs' is a list-valued slot: call one element"}},
		{name: "loop var over a local list is no service", slots: "w",
			code: "let xs = [1, 2]\nfor x in xs:\n  call x",
			want: []string{"3:8 error check/call-target loop variable"}},
		{name: "unknown call target suggests a slot", slots: "reviewer",
			code: "call reveiwer",
			want: []string{"1:6 error check/undefined-name call target 'reveiwer' is not a declared slot; did you mean 'reviewer'?"}},
		{name: "call a literal", slots: "w",
			code: `call "w"`,
			want: []string{"1:6 error check/call-target"}},
		{name: "precise args", slots: "w(brief,material)",
			code: "call w\n  brief: 1\n  materail: 2\n  prompt: \"go\"\n  model: \"m\"",
			want: []string{"3:3 warning check/unknown-arg 'materail' is not among what slot 'w' requires; did you mean 'material'?"}},
		{name: "missing precise args through a loop variable", slots: "cs[](brief,context)",
			code: "for c in cs:\n  call c\n    context: 1\n    other: 1",
			want: []string{"2:3 warning check/missing-arg call to slot 'cs' does not pass 'brief'"}},
		{name: "free-text requires checks no keys", slots: "w",
			code: "call w\n  anything: 1"},
		{name: "retries and backoff", slots: "w",
			code: "call w\n  retries -1\ncall w\n  retries 1.5\ncall w\n  retries \"3\"\ncall w\n  backoff {initial: 1s, max: 5s, mult: 2}\ncall w\n  retries n_retries\n  backoff {initial: 1s}\n  timeout 30s",
			want: []string{
				"2:11 error check/retries not -1",
				"4:11 error check/retries the number 1.5",
				"6:11 error check/retries a string",
				"8:11 error check/backoff-without-retries",
				"8:34 error check/backoff-key 'mult'",
				"10:11 error check/undefined-name 'n_retries'",
			}},
		{name: "clause written as an argument", slots: "w v(timeout)",
			code: "call w\n  retries: 3\n  timeout: 30s\ncall v\n  timeout: 5",
			want: []string{"2:3 warning check/clause-as-arg argument 'retries' is passed to the service, it does not set the clause: write the clause without ':' (retries 3)", "3:3 warning check/clause-as-arg timeout 30s"}},
		{name: "timeout", slots: "w",
			code: "call w\n  timeout \"soon\"\ncall w\n  timeout 2\ncall w\n  timeout 0\ncall w\n  timeout 0s\ncall w\n  timeout 0.5",
			want: []string{"2:11 error check/timeout a string", "6:11 error check/timeout not 0", "8:11 error check/timeout not 0s"}},
		{name: "on_fail shape", slots: "w!a_list_of_findings v!verdict_text",
			code: "call w\n  on_fail use \"none\"\ncall w\n  on_fail use []\ncall w\n  on_fail use null\ncall v\n  on_fail use { ok: false }",
			want: []string{
				"2:15 warning check/on-fail-shape fallback is a string but slot 'w' ensures a list",
				"8:15 warning check/on-fail-shape fallback is an object but slot 'v' ensures a string",
			}},
		{name: "on_fail value is checked for names", slots: "w",
			code: "call w\n  on_fail use fallback_value",
			want: []string{"2:15 error check/undefined-name"}},
	}
}

func scopeCases() []checkCase {
	return []checkCase{
		{name: "re-let in a loop", slots: "w",
			code: "let last = null\nrepeat 3:\n  let last = call w\nreturn last",
			want: []string{"3:7 warning check/redeclared 'last' is already bound (line 1): this let is an assignment"}},
		{name: "alternative branches may bind the same name", slots: "w v",
			code: "let a = call w\nif a.ok:\n  let r = 1\nelif a.maybe:\n  let r = 2\nelse:\n  let r = 3\ntry:\n  let s = call w\ncatch as e:\n  let s = e.message\nreturn { r: r, s: s }"},
		{name: "a name bound after both branches is a re-let", slots: "w",
			code: "let a = call w\nif a.ok:\n  let r = 1\nelse:\n  let q = 2\nlet r = 3\nlet q = 4\nreturn { r: r, q: q }",
			want: []string{
				"6:5 warning check/redeclared 'r' is already bound (line 3)",
				"7:5 warning check/redeclared 'q' is already bound (line 5)",
			}},
		{name: "let copy of an input is fine", inputs: "progress",
			code: "let progress = progress\nreturn progress"},
		{name: "let over an input", inputs: "brief",
			code: "let brief = \"x\"\nreturn brief",
			want: []string{
				"0 warning check/unused-input 'brief'",
				"1:5 warning check/redeclared rebinds the declared input 'brief'",
			}},
		{name: "assign outer in parallel body", slots: "cs[]",
			code: "let best = null\nlet all = []\nparallel for c in cs:\n  let r = call c\n  best = r\n  append r to all\n  r = 2\nreturn all",
			want: []string{"5:3 error check/parallel-assign parallel body assigns the outer 'best'"}},
		{name: "let outer in parallel body", slots: "cs[]",
			code: "let best = null\nlet rs = parallel repeat 3:\n  let best = 1\nreturn rs",
			want: []string{"3:7 error check/parallel-assign let 'best' inside a parallel body names the outer 'best' (line 1): outside it this let would assign that name, here it would make one of the body's own"}},
		{name: "index write to outer in parallel first for", slots: "cs[]",
			code: "let seen = {}\nlet w = parallel first for c in cs:\n  seen[c] = true\n  return c\nreturn w",
			want: []string{"3:3 error check/parallel-assign writes into the outer 'seen'"}},
		{name: "per-iteration state inside a parallel body", slots: "cs[]", inputs: "ms",
			code: "let rs = parallel for c in cs:\n  let acc = []\n  let prior = \"\"\n  for m in ms:\n    let r = call c\n      m: m\n    record r in acc\n    prior = r\n  return acc\nreturn rs"},
		{name: "parallel block branches", slots: "w",
			code: "let a = 1\nparallel:\n  let a = call w\n  let b = call w\n  let b = call w\n  let c = call w\n    x: b\nreturn { a: a, b: b, c: c }",
			want: []string{
				"3:7 error check/parallel-assign let 'a' inside a parallel body",
				"5:7 error check/parallel-assign two parallel branches bind 'b'",
				"7:8 error check/undefined-name undefined name 'b'",
			}},
		{name: "parallel modifiers", slots: "w",
			code: "parallel (\"any\", count: 2, on-fail: \"continue\"):\n  let a = call w\n  let b = call w\nreturn [a, b]"},
		{name: "parallel modifiers misspelt", slots: "w",
			code: "parallel (\"frist\", on-fail: \"skip\"):\n  let a = call w\nreturn a",
			want: []string{
				"1:11 error check/parallel-mod \"frist\" is no parallel join: write one of \"all\", \"first\" or \"any\"",
				"1:29 error check/parallel-mod \"skip\" is no on-fail policy",
			}},
		{name: "parallel count out of place", slots: "w",
			code: "parallel (\"first\", count: 1):\n  let a = call w\nreturn a",
			want: []string{"1:27 error check/parallel-mod count goes with the join \"any\""}},
		{name: "parallel count above the branches", slots: "w",
			code: "parallel (\"any\", count: 3):\n  let a = call w\n  let b = call w\nreturn [a, b]",
			want: []string{"1:25 error check/parallel-mod count: 3, but the block has 2 branches"}},
		{name: "parallel count below one", slots: "w",
			code: "parallel (\"any\", count: 0):\n  let a = call w\nreturn a",
			want: []string{"1:25 error check/parallel-mod count: 0: at least one branch must succeed"}},
	}
}

func loopCases() []checkCase {
	return []checkCase{
		{name: "unbounded loop", slots: "w",
			code: "let v = null\nloop until v is present:\n  v = call w\nloop while v is null (max: 3) as i:\n  v = call w",
			want: []string{"2:1 error check/unbounded-loop loop until has no bound"}},
		{name: "until sees the body's names", slots: "w c",
			code: "loop until review accepts the draft (max: 5):\n  let draft = call w\n  let review = call c\n    d: draft\nreturn draft"},
		{name: "while does not see the body's names", slots: "w",
			code: "loop while later is null (max: 5):\n  let later = call w\nreturn later",
			want: []string{"1:12 error check/undefined-name 'later'"}},
		{name: "loop max 0", slots: "w",
			code: "let v = null\nloop until v is present (max: 0):\n  v = call w\nreturn v",
			want: []string{"2:31 error check/loop-count loop max 0: the loop never runs"}},
		{name: "repeat 0", slots: "w",
			code: "repeat 0:\n  call w",
			want: []string{"1:8 error check/loop-count repeat count 0: the body never runs"}},
		{name: "repeat counts", slots: "w", config: "max_steps", inputs: "tiers",
			code: "repeat 2:\n  call w\nrepeat max_steps:\n  call w\nfor tier in tiers:\n  repeat tier.count:\n    call w\nrepeat \"3\":\n  call w\nrepeat 2.5:\n  call w\nrepeat max_steps + 1:\n  call w\nloop while true (max: -1):\n  call w",
			want: []string{
				"8:8 error check/loop-count repeat count must be",
				"10:8 error check/loop-count repeat count 2.5 is not",
				"12:8 error check/loop-count repeat count must be",
				"14:12 warning check/loop-invariant loop while: its condition reads no name",
				"14:23 error check/loop-count loop max -1 is not a non-negative integer",
			}},
		{name: "loop conditions that never change", slots: "worker critic", config: "bar:number",
			code: "let r = call critic\nloop until r.score >= bar (max: 3):\n  let d = call worker\nlet i = 0\nloop while i < 3 (max: 9):\n  call worker\nloop until false (max: 2):\n  call worker",
			want: []string{
				"2:12 warning check/loop-invariant loop until: its condition reads r, bar, none of which its body changes",
				"5:12 warning check/loop-invariant loop while: its condition reads i,",
				"7:12 warning check/loop-invariant loop until: its condition reads no name",
			}},
		{name: "a judged loop condition whose names never change", slots: "worker critic",
			code: "let d = call worker\nlet v = call critic\nloop until v approves the draft d (max: 3):\n  call worker\nloop until v approves the draft d (max: 3):\n  d = call worker",
			want: []string{"3:12 warning check/loop-invariant loop until: its condition reads v, d, none of which its body changes"}},
		{name: "loop conditions the body changes or that a loop leaves", slots: "worker critic", config: "bar:number", inputs: "xs",
			code: "let r = call critic\nloop until r.score >= bar (max: 3):\n  r = call critic\nloop until k > 2 (max: 5) as k:\n  call worker\nlet i = 0\nloop while i < 3 (max: 9):\n  i = i + 1\nloop while true (max: 9):\n  let v = call critic\n  if v.ok:\n    break\nloop while xs.length < 3 (max: 4):\n  append 1 to xs\nloop until q.done (max: 3):\n  let q = call critic\nloop while r.more (max: 3):\n  try:\n    call worker\n  catch as r:\n    call worker",
			want: nil},
		{name: "for over a value that is no list", slots: "w", config: "names:string", inputs: "xs",
			code: "for n in names:\n  call w\nfor x in xs:\n  call w\nlet o = {a: 1}\nfor k in o:\n  call w\nfor c in \"abc\":\n  call w",
			want: []string{
				"1:10 error check/type-mismatch for cannot loop over names: it is text, not a list, so a run stops there: declare names a list",
				"6:10 error check/type-mismatch for cannot loop over o: it is an object of a, not a list",
				"8:10 error check/type-mismatch for cannot loop over this value: it is text",
			}},
		{name: "parallel first value read untested", slots: "w", inputs: "xs",
			code: "let won = parallel first for x in xs:\n  let r = call w\n  return r\nreturn {a: won.out, b: won.by}",
			want: []string{"4:12 warning check/no-winner won is the value of a parallel first loop, null when no iteration returns"}},
		{name: "parallel first value tested", slots: "w", inputs: "xs",
			code: "let won = parallel first for x in xs:\n  let r = call w\n  return r\nif won is null:\n  return null\nlet w2 = parallel first repeat 2:\n  let r = call w\n  return r\nif not w2:\n  return null\nlet w3 = parallel first for x in xs:\n  let r = call w\n  return r\nif w3 != null and w3.ok:\n  return {a: won.out, b: w2.by, c: w3.x}",
			want: nil},
		{name: "loop variables that overwrite an input read after the loop", slots: "w", config: "n", inputs: "topic xs",
			code: "for topic in xs:\n  call w\n    topic: topic\nrepeat 2 as n:\n  call w\nreturn [topic, n]",
			want: []string{
				"0 warning check/unused-config config 'n' is declared but never used",
				"0 warning check/unused-input input 'topic' is declared but never used",
				"1:5 error check/loop-var-overwrite the loop variable topic has the name of the input topic, and overwrites it: line 6 reads topic",
				"4:13 error check/loop-var-overwrite the loop variable n has the name of the config key n",
			}},
		{name: "loop variables named like an input, not read after, or rebound", slots: "w", inputs: "topic xs",
			code: "for topic in xs:\n  call w\n    topic: topic\nparallel for xs in [1]:\n  call w\nfor topic in xs:\n  call w\nlet topic = \"t\"\nreturn [topic, xs]",
			want: []string{"0 warning check/unused-input input 'topic' is declared but never used", "8:5 warning check/redeclared"}},
		{name: "count of a declared type", slots: "w", config: "n:string m:integer",
			code: "repeat n:\n  call w\nrepeat m:\n  call w",
			want: []string{"1:8 error check/loop-count repeat count 'n' is declared string, not an integer"}},
		{name: "continue and break", slots: "w", inputs: "xs",
			code: "continue\nfor x in xs:\n  if x:\n    break\n  try:\n    continue\n  catch:\n    break\nparallel:\n  let a = repeat 2:\n    continue\nbreak",
			want: []string{
				"1:1 error check/branch-outside-loop continue outside a loop",
				"11:5 warning check/collect-null continue gives null to the list the loop collects",
				"12:1 error check/branch-outside-loop break outside a loop",
			}},
		{name: "branches cannot leave parallel bodies", slots: "w", inputs: "xs",
			code: "parallel for x in xs:\n  if x:\n    break\n  continue\nfor y in xs:\n  parallel:\n    let a = call w\n    continue\nparallel repeat 2:\n  loop while true (max: 2):\n    break\n  for z in xs:\n    break\nlet v = parallel first for x in xs:\n  break",
			want: []string{
				"3:5 error check/branch-outside-loop break cannot leave a parallel loop",
				"8:5 error check/branch-outside-loop continue cannot leave a parallel: branch",
				"15:3 error check/branch-outside-loop break cannot leave a parallel loop",
			}},
	}
}

func outputCases() []checkCase {
	return []checkCase{
		{name: "returned keys against outputs", slots: "w", outputs: "result score",
			code: "let r = call w\nreturn { result: r, extra: 1 }",
			want: []string{
				"0 warning check/output-not-returned 'score'",
				"2:21 warning check/undeclared-output returned key 'extra' is not a declared output",
			}},
		{name: "a returned key that misspells an output the object lacks", slots: "w", outputs: "result attempts",
			code: "let r = call w\nif r.ok:\n  return { result: r, attempts: 1, attempt: 2 }\nreturn { reslt: r, attempts: 1 }",
			want: []string{
				"3:36 warning check/undeclared-output returned key 'attempt' is not a declared output",
				"4:10 error check/return-shape returned key 'reslt' is no declared output, and the object lacks the output 'result' it is close to: did you mean result: ...?",
			}},
		{name: "outputs returned on different paths", slots: "w", outputs: "result abort_reason",
			code: "let r = call w\nif r.abort:\n  return { result: null, abort_reason: r.reason }\nreturn { result: r }"},
		{name: "collecting bodies do not end the delegation", slots: "w", outputs: "result",
			code: "let rs = for i in [1, 2]:\n  return { item: i }\nreturn { result: rs }"},
		{name: "inferred outputs are not checked", slots: "w", outputs: "~result ~other",
			code: "return { result: 1, more: 2 }"},
		{name: "opaque return skips the check", slots: "w", outputs: "result",
			code: "let r = call w\nreturn r"},
		// a bare return gives null as return null does: no output
		{name: "a bare return returns no output", slots: "w", outputs: "result",
			code: "let result = call w\nreturn",
			want: []string{"0 warning check/output-not-returned 'result'"}},
		{name: "a bare return beside one that returns the output", slots: "w", outputs: "result",
			code: "let r = call w\nif r.skip:\n  return\nreturn { result: r }"},
		{name: "placeholder strings", slots: "w", inputs: "h",
			code: "let r = call w\n  prompt: \"the number of items in the list\"\nrecord { reason: \"matched failure_criteria\" } in h\nreturn {\n  n: \"number of completed attempts before winner\",\n  note: \"Done\",\n  why: \"the run was aborted by the guard\",\n  nested: { k: \"the winning candidate name\" }\n}",
			want: []string{
				"5:6 warning check/placeholder-string n: the string \"number of completed attempts before winner\"",
				"8:16 warning check/placeholder-string",
			}},
	}
}

func conditionCases() []checkCase {
	return []checkCase{
		{name: "says polarity", slots: "w", config: "crit",
			code: "let r = call w\nif crit says r is purple:\n  return r\nif crit says r is a failure:\n  return null",
			want: []string{"2:4 warning check/says-polarity cannot tell whether \"purple\""}},
		{name: "condition mentions no bound name", slots: "w",
			code: "let verdict = call w\nif the moon is full:\n  return 1\nif verdict certifies the proposal:\n  return 2",
			want: []string{"2:4 warning check/condition-no-names"}},
	}
}

// TestAssignWithoutLet: an assignment to a name no let declared says to
// declare it; it suggests a variable it may misspell, never a slot,
// config key or input that merely looks alike.
func TestAssignWithoutLet(t *testing.T) {
	for _, tc := range []struct {
		code, want string
	}{
		{"review = call reviewer\nreturn review",
			"assignment to undeclared name 'review': declare it with `let review = ...`"},
		{"let review = call reviewer\nreveiw = call reviewer\nreturn review",
			"assignment to undeclared name 'reveiw': declare it with `let reveiw = ...`, or did you mean 'review'?"},
	} {
		prog, errs := syntax.ParseString("t.prose.md", tc.code)
		if len(errs) > 0 {
			t.Fatalf("parse: %v", errs)
		}
		var msgs []string
		for _, d := range check.Check(prog, decls("reviewer", "reviews", "reviw", "")) {
			if d.Code == check.CodeUndefinedName {
				msgs = append(msgs, d.Message)
			}
		}
		if len(msgs) != 1 || msgs[0] != tc.want {
			t.Errorf("%q: undefined-name findings %q, want %q", tc.code, msgs, tc.want)
		}
	}
}

// TestRequiresMisspelt: when a call passes a name the spec knows (an
// input, or `key: key`) and the slot's requires names a misspelling of
// it, the finding is at the slot, not at the correct argument.
func TestRequiresMisspelt(t *testing.T) {
	for _, tc := range []struct {
		name, inputs, code, want string
		line                     int
	}{
		{"an input passed", "task_brief", "call w\n  task_brief: task_brief",
			"slot 'w' requires 'task_breif', which looks like a misspelling of 'task_brief', the argument its calls pass: fix the requires line", 0},
		{"a variable passed", "", "let task_brief = \"x\"\ncall w\n  task_brief: task_brief",
			"slot 'w' requires 'task_breif', which looks like a misspelling of 'task_brief'", 0},
		{"an unknown key passed", "", "call w\n  task_brief: \"x\"",
			"argument 'task_brief' is not among what slot 'w' requires; did you mean 'task_breif'?", 2},
	} {
		prog, errs := syntax.ParseString("t.prose.md", tc.code)
		if len(errs) > 0 {
			t.Fatalf("parse: %v", errs)
		}
		var got []diag.Diagnostic
		for _, d := range check.Check(prog, decls("w(task_breif)", "", tc.inputs, "")) {
			if d.Code == check.CodeUnknownArg || d.Code == check.CodeMissingArg {
				got = append(got, d)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0].Message, tc.want) || got[0].Line != tc.line {
			t.Errorf("%s: findings %v, want one at line %d: %q", tc.name, got, tc.line, tc.want)
		}
	}
}

// A const is bound once: a later let of it, an assignment to it, or a
// const of a name already bound is an error at the name; its elements
// and appends are not (it fixes what the name holds).
// codeCase is a program and the one finding it must draw: "LINE:COL"
// and a fragment of the message, or "" for none.
type codeCase struct{ code, want string }

// oneFindingEach checks each case's program against d: exactly one
// error of code at want's position, its message holding the rest of
// want; none when want is "".
func oneFindingEach(t *testing.T, code string, d *check.Decls, cases []codeCase) {
	t.Helper()
	for _, tc := range cases {
		prog, errs := syntax.ParseString("t.prose.md", tc.code)
		if len(errs) > 0 {
			t.Fatalf("parse %q: %v", tc.code, errs)
		}
		var got []string
		for _, f := range check.Check(prog, d) {
			if f.Code == code {
				got = append(got, f.String())
			}
		}
		at, frag, _ := strings.Cut(tc.want, " ")
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%q: %q, want no %s finding", tc.code, got, code)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], ":"+at+": error") || !strings.Contains(got[0], strings.TrimSpace(frag))):
			t.Errorf("%q: %q, want one at %s", tc.code, got, tc.want)
		}
	}
}

// An input, config key or slot holds the caller's value: assigning it is
// an error (upstream: reassigning a parameter is an error), while a let
// of the name, a local or a loop variable assigned, and an element of an
// input written, are not.
func TestInputIsNotAssigned(t *testing.T) {
	oneFindingEach(t, check.CodeInputAssign, decls("w", "max_rounds", "limit items", ""), []codeCase{
		{"limit = 3\nreturn limit", "1:1 assignment to the input 'limit': it holds the caller's value and cannot be assigned; bind the new value to another name (let new-limit = ...)"},
		{"for x in items:\n  if x > limit:\n    limit = x\nreturn limit", "3:5"},
		{"max_rounds = 2\nreturn max_rounds", "1:1 assignment to the config key 'max_rounds'"},
		{"w = 1\nreturn w", "1:1 assignment to the slot 'w'"},
		{"let limit = limit\nlimit = 2\nreturn limit", ""},
		{"for x in items:\n  x = limit\nreturn x", ""},
		{"items[0] = 1\nreturn items", ""},
	})
}

// A loop or catch variable holds its iteration's (or error's) value:
// assigning it, or a let of it, inside its body is an error (upstream);
// after the body the name is an ordinary variable again.
func TestLoopVarIsNotAssigned(t *testing.T) {
	oneFindingEach(t, check.CodeLoopVarAssign, decls("", "", "limit items", ""), []codeCase{
		{"for x in items:\n  x = limit\nreturn x", "2:3 'x' is the loop or catch variable bound on line 1"},
		{"for x, i in items:\n  if x:\n    i = 0\nreturn items", "3:5"},
		{"repeat 3 as k:\n  let k = 2\nreturn limit", "2:7"},
		{"loop until done (max: 3) as k:\n  k = 1\nreturn limit", "2:3"},
		{"parallel for x in items:\n  x = 1\nreturn limit", "2:3"},
		{"try:\n  throw \"no\"\ncatch as e:\n  e = 1\nreturn limit", "4:3"},
		{"for x in items:\n  let y = x\nx = 1\nreturn x", ""},
		{"for x in items:\n  for y in items:\n    let z = y\nreturn limit", ""},
		{"try:\n  throw \"no\"\ncatch as e:\n  let f = e\ne = 2\nreturn e", ""},
	})
}

func TestConstIsBoundOnce(t *testing.T) {
	oneFindingEach(t, check.CodeConstAssign, decls("", "", "", ""), []codeCase{
		{"const t = 1\nt = 2\nreturn t", "2:1"},
		{"const t = 1\nlet t = 2\nreturn t", "2:5"},
		{"let t = 1\nconst t = 2\nreturn t", "2:7"},
		{"const t = [1]\nt[0] = 2\nappend 3 to t\nreturn t", ""},
		{"const t = 1\nreturn t", ""},
	})
}
