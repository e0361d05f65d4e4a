package check_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// mistakeDecls is what the programs of TestMistakes can see: slots whose
// ensures name fields or do not, ## nodes with typed inputs and outputs,
// typed inputs, and the node's own outputs (outputs: "name:type ...").
func mistakeDecls(outputs string) *check.Decls {
	n := func(name, typ string) check.Name { return check.Name{Name: name, Type: typ} }
	d := &check.Decls{
		Slots: []check.Slot{
			{Name: "reviewer", Ensures: "an object `{approved: boolean, notes: string}`"},
			{Name: "critic", Ensures: "returns `score` (number) and `verdict` (string)"},
			{Name: "worker", Ensures: "the drafted text, ready for review"},
			{Name: "fetch"}, {Name: "add-one"}, {Name: "splitter"}, {Name: "draft"}, {Name: "grade"},
			{Name: "scorer", Requires: "`draft` (string) and `round` (integer)"},
			{Name: "ranker", Requires: "{items: string[], top: integer}"},
			{Name: "judge", Ensures: "a verdict object `{verdict: \"accept\" | \"reject\", reasoning}`"},
		},
		Inputs: []check.Name{n("topic", "string"), n("start", "integer"), n("again", "boolean")},
		Callees: []check.Callee{
			{Name: "fetch", Inputs: []check.Name{n("key", "string")}, Outputs: []check.Name{n("data", "string")}},
			{Name: "add-one", Inputs: []check.Name{n("n", "integer")}, Outputs: []check.Name{n("out", "integer")}},
			{Name: "splitter", Outputs: []check.Name{n("parts", "list"), n("count", "integer")}},
			{Name: "draft", Outputs: []check.Name{n("article", "")}},
			{Name: "grade", Inputs: []check.Name{n("level", `"low" | "high"`)}, Outputs: []check.Name{n("mark", `"A" | "B"`)}},
		},
		ReturnRule: outputs != "",
		Node:       "brief",
	}
	for _, o := range strings.Fields(outputs) {
		name, typ, _ := strings.Cut(o, ":")
		d.Outputs = append(d.Outputs, n(name, typ))
	}
	return d
}

// TestMistakes is a table of plausible mistakes with values whose shape
// the spec declares: each is reported at its line with its code, and the
// right programs beside them are not (want empty).
func TestMistakes(t *testing.T) {
	type row struct {
		name    string
		outputs string // the node's outputs; "" for a pattern's Delegation
		code    string
		want    []string // "LINE code", sorted
	}
	const um, rs, fs, tm = check.CodeUnknownMember, check.CodeReturnShape, check.CodeFallbackShape, check.CodeTypeMismatch
	rows := []row{
		// members of slots whose ensures name fields
		{"slot member typo", "", "let review = call reviewer\nif review.aproved:\n  return review.notes\nreturn null\n", []string{"2 " + um}},
		{"slot member typo in prose ensures", "", "let c = call critic\nreturn c.verdcit\n", []string{"2 " + um}},
		{"slot member typo in an interpolation", "", "let review = call reviewer\nreturn \"notes: {review.note}\"\n", []string{"2 " + um}},
		{"slot member typo after a copy", "", "let review = call reviewer\nlet r = review\nreturn r.aproved\n", []string{"3 " + um}},
		// a do: block's value is its last statement's, a one-output
		// call's read as the output (v.out is v) as outside a block
		{"member of a do: block's value", "", "let v = do:\n  call add-one\n    n: 1\nlet w = do:\n  let r = call splitter\n  r\nlet x = do:\n  let r = call add-one\n    n: 2\n  r + 1\nreturn [v.out, v.out.x, w.cont, x.out]\n", []string{"11 " + um, "11 " + um, "11 " + um}},
		{"do: block whose value is not followed", "", "let v = do:\n  if start > 1:\n    return \"big\"\n  call add-one\n    n: 1\nlet w = do:\n  for i in [1]:\n    let r = call splitter\n    return r\n  7\nreturn [v.x, w.x]\n", nil},
		// arguments of another type than the slot's requires gives them,
		// which the run refuses before the call
		{"slot argument of another type", "", "let s = call scorer\n  draft: topic\n  round: \"1\"\nlet r = call ranker\n  items: \"a, b\"\n  top: 3\nreturn [s, r]\n", []string{"3 " + tm, "5 " + tm}},
		{"slot arguments of the required types", "", "let s = call scorer\n  draft: \"d\"\n  round: start\nlet t = call scorer\n  round: 2.0\nlet r = call ranker\n  items: [\"a\", \"b\"]\n  top: null\n  note: 3\nreturn [s, r, t]\n", nil},
		// an ordering with a text literal that spells a number
		{"ordering with numeric text", "", "let c = call critic\nif c.score > \"0.5\":\n  return 1\nreturn 0\n", []string{"2 " + tm}},
		{"ordering of text with text", "", "let c = call critic\nif c.verdict >= \"m\" and c.score > 0.5:\n  return 1\nreturn 0\n", nil},
		// an object with a boolean field used as the condition
		{"answer object as a condition", "", "let review = call reviewer\nif review:\n  return 1\nif not review or review.approved:\n  return 2\nreturn 0\n", []string{"2 " + tm, "4 " + tm}},
		{"presence test and field of an answer", "", "let review = call reviewer\nif review is present and review.approved:\n  return 1\nlet c = call critic\nif c:\n  return 2\nreturn 0\n", nil},
		// members of a caught error (delegation.Error.Object)
		{"caught error member typo", "", "try:\n  let r = call worker\n  return r\ncatch as problem:\n  return problem.mesage\n", []string{"5 " + um}},
		{"caught error members", "", "try:\n  let r = call worker\n  return r\ncatch as e:\n  return [e.message, e.kind, e.slot, e.attempts, e.value, e.error, e.message.length]\n", nil},
		// a word compared with text of a declared set of words
		{"verdict compared with a word it is never", "", "let v = call judge\nif v.verdict == \"approved\":\n  return 1\nif v.verdict != \"Accept\":\n  return 2\nreturn 0\n", []string{"2 " + tm, "4 " + tm}},
		{"verdict compared with its words", "", "let v = call judge\nif v.verdict == \"accept\" or v.verdict != \"reject\" or v.reasoning == \"x\":\n  return 1\nreturn 0\n", nil},
		{"argument outside a callee's words", "", "let g = call grade\n  level: \"urgent\"\nlet h = call grade\n  level: \"low\"\nif g == \"C\" or h == \"A\":\n  return 1\nreturn 0\n", []string{"2 " + tm, "5 " + tm}},
		{"caught error kind compared with an error's name", "", "try:\n  let r = call worker\n  return r\ncatch as e:\n  if e.kind == \"not-found\":\n    return 1\n  if e.kind == \"call\" or e.error == \"not-found\":\n    return 2\n  return 0\n", []string{"5 " + tm}},
		// a literal null for a typed output the run would refuse
		{"null for a typed output", "total:number note:string", "return { total: null, note: \"n\" }\n", []string{"1 " + tm}},
		{"null for the one typed output", "total:number", "return null\n", []string{"1 " + tm}},
		{"null for an untyped output", "total note", "return { total: null, note: null }\n", nil},
		// one output: a returned object whose key misspells it would
		// become the output whole ({"summary": {"sumary": ...}})
		{"one output misspelt as the key", "summary", "return { sumary: topic }\n", []string{"1 " + rs}},
		{"one output given an object on purpose", "summary", "return { summary: { title: topic } }\n", nil},
		{"one output as an object of other keys", "summary", "return { title: topic, body: topic }\n", nil},
		// an until condition is tested after the body: it reads the
		// shapes the body bound (a typo there would run the loop to its max)
		{"until condition member typo", "", "let r = null\nloop until review.aproved (max: 3):\n  let review = call reviewer\n  r = review\nreturn r\n", []string{"2 " + um}},
		{"until condition member", "", "let r = null\nloop until review.approved (max: 3):\n  let review = call reviewer\n  r = review\nreturn r\n", nil},
		{"until condition after a continue is not followed", "", "let r = null\nlet review = null\nloop until review.aproved (max: 3):\n  if r:\n    continue\n  review = call reviewer\n  r = review\nreturn r\n", nil},
		{"slot extra field is context", "", "let review = call reviewer\nreturn review.reasoning\n", nil},
		{"slot without fields guesses nothing", "", "let w = call worker\nreturn w.text\n", nil},
		// members of callees
		{"callee member typo", "", "let r = call splitter\nreturn r.prts\n", []string{"2 " + um}},
		{"callee member it does not declare", "", "let r = call splitter\nreturn r.total\n", []string{"2 " + um}},
		{"one-output member typo", "", "let f = call fetch\n  key: topic\nreturn f.dta\n", []string{"3 " + um}},
		{"member of a one-output integer", "", "let t = call add-one\n  n: start\nreturn t.value\n", []string{"3 " + um}},
		{"one-output member after re-assignment under if", "", "let t = call add-one\n  n: start\nif again:\n  t = call add-one\n    n: t.out\nreturn t.out\n", nil},
		{"typo after re-assignment under if", "", "let t = call add-one\n  n: start\nif again:\n  t = call add-one\n    n: t.out\nreturn t.otu\n", []string{"6 " + um}},
		{"re-assigned to a number", "", "let t = call add-one\n  n: start\nt = 3\nreturn t.out\n", []string{"4 " + um}},
		{"branches disagree: nothing guessed", "", "let t = call add-one\n  n: start\nif again:\n  t = call worker\nreturn t.whatever\n", nil},
		{"assigned in a loop: nothing guessed after it", "summary:string score:integer", "let r = null\nrepeat 1:\n  r = { summary: \"s\" }\nreturn r\n", nil},
		{"assigned in a loop: nothing guessed", "", "let r = call splitter\nrepeat 2:\n  let x = r.total\n  r = call worker\n", nil},
		{"member of a declared string input", "", "return topic.name\n", []string{"1 " + um}},
		{"member of a text literal", "", "let s = \"done\"\nreturn s.status\n", []string{"2 " + um}},
		{"member of a literal object it lacks", "", "let o = { a: 1 }\nreturn o.b\n", []string{"2 " + um}},
		// returns against the declared outputs
		{"return misses an output", "summary:string score:integer", "return { summary: \"s\" }\n", []string{"1 " + rs}},
		{"return of a name that misses an output", "summary:string score:integer", "let out = { summary: \"s\" }\nreturn out\n", []string{"2 " + rs}},
		{"return adds a key the rule drops", "summary:string score:integer", "return { summary: \"s\", score: 1, notes: \"n\" }\n", []string{"1 " + rs}},
		{"return misspells an output", "summary:string score:integer", "return { summary: \"s\", scroe: 1 }\n", []string{"1 " + rs}},
		{"return of text for two outputs", "summary:string score:integer", "let s = \"x\"\nreturn s\n", []string{"2 " + rs}},
		{"return of the wrong type", "summary:string score:integer", "return { summary: \"s\", score: \"high\" }\n", []string{"1 " + tm}},
		{"one output of the wrong type", "result:integer", "return \"five\"\n", []string{"1 " + tm}},
		{"one output given an object", "result:string", "return { text: \"x\" }\n", []string{"1 " + tm}},
		{"one output from a callee of another type", "result:integer", "let f = call fetch\n  key: topic\nreturn f.data\n", []string{"3 " + tm}},
		{"branches give a field two types: nothing guessed", "summary:string score:integer", "let r = { n: 1 }\nif again:\n  r = { n: \"one\" }\nreturn { summary: \"s\", score: r.n }\n", nil},
		{"branches agree: the member is checked", "", "let r = { n: 1 }\nif again:\n  r = { n: 2 }\nreturn r.m\n", []string{"4 " + um}},
		{"right return", "summary:string score:integer", "let t = call add-one\n  n: start\nreturn { summary: \"s\", score: t.out }\n", nil},
		// fallbacks against the callee's shape
		{"fallback keyed by the one output", "", "let f = call fetch\n  key: topic\n  on_fail use { data: \"fallback\" }\nreturn f.data\n", nil},
		{"fallback as the bare output", "", "let f = call fetch\n  key: topic\n  on_fail use \"fallback\"\nreturn f.data\n", nil},
		{"fallback misspells the one output", "", "let f = call fetch\n  key: topic\n  on_fail use { dat: \"fallback\" }\nreturn f\n", []string{"3 " + fs}},
		{"fallback of another type", "", "let f = call fetch\n  key: topic\n  on_fail use 0\nreturn f\n", []string{"3 " + fs}},
		{"fallback keyed output of another type", "", "let f = call fetch\n  key: topic\n  on_fail use { data: 0 }\nreturn f\n", []string{"3 " + fs}},
		{"fallback with an extra key", "", "let f = call fetch\n  key: topic\n  on_fail use { data: \"x\", cached: true }\nreturn f\n", []string{"3 " + fs}},
		{"fallback lacks an output", "", "let r = call splitter\n  on_fail use { parts: [] }\nreturn r\n", []string{"2 " + fs}},
		{"fallback is text for an object", "", "let r = call splitter\n  on_fail use \"none\"\nreturn r\n", []string{"2 " + fs}},
		{"fallback lacks a slot field", "", "let review = call reviewer\n  on_fail use { approved: false }\nreturn review\n", []string{"2 " + fs}},
		{"fallback field of another type", "", "let review = call reviewer\n  on_fail use { approved: \"no\", notes: \"\" }\nreturn review\n", []string{"2 " + tm}},
		{"fallback is text for a slot object", "", "let review = call reviewer\n  on_fail use \"rejected\"\nreturn review\n", []string{"2 " + fs}},
		{"fallback null is always fine", "", "let r = call splitter\n  on_fail use null\nreturn r\n", nil},
		// comparisons that can never hold
		{"text compared with a number", "", "let f = call fetch\n  key: topic\nif f.data == 0:\n  return 1\nreturn 0\n", []string{"3 " + tm}},
		{"integer output compared with text", "", "let t = call add-one\n  n: start\nif t.out != \"2\":\n  return 1\nreturn 0\n", []string{"3 " + tm}},
		{"boolean field ordered", "", "let review = call reviewer\nif review.approved > 0:\n  return 1\nreturn 0\n", []string{"2 " + tm}},
		{"the seed's sentinel comparison", "", "let f = call fetch\n  key: topic\n  on_fail use { data: \"fallback for \" + topic }\nif f.data == \"fallback for \" + topic:\n  return 1\nreturn 0\n", nil},
		{"integer compared with a number", "", "let t = call add-one\n  n: start\nif t.out >= 1.5:\n  return 1\nreturn 0\n", nil},
		// arguments of the wrong declared type
		{"argument text for an integer", "", "let t = call add-one\n  n: \"three\"\nreturn t\n", []string{"2 " + tm}},
		{"argument from an input of another type", "", "let t = call add-one\n  n: topic\nreturn t\n", []string{"2 " + tm}},
		{"argument from a one-output call", "", "let t = call add-one\n  n: start\nlet u = call add-one\n  n: t.out\nreturn u\n", nil},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			prog, errs := syntax.ParseString("m.prose.md", r.code)
			if len(errs) > 0 {
				t.Fatalf("parse: %v", errs)
			}
			var got []string
			for _, d := range check.Check(prog, mistakeDecls(r.outputs)).Dedupe() {
				switch d.Code {
				case check.CodeUnusedInput, check.CodeOutputNotReturned, check.CodeUndeclaredOutput:
					continue // the shared fixture declares more than each row uses
				}
				got = append(got, fmt.Sprintf("%d %s", d.Position.Line, d.Code))
			}
			slices.Sort(got)
			if !slices.Equal(got, r.want) {
				t.Errorf("got  %q\nwant %q\n%s", got, r.want, dump(check.Check(prog, mistakeDecls(r.outputs))))
			}
		})
	}
}

func dump(l diag.List) string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}
