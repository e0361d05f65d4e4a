package delegation

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation/syntax"
)

// runOutputs runs code with every call of a name in outputs marked as a
// call of a node whose one output is outputs[name], as the Contract
// Markdown checks mark it before a run.
func runOutputs(t *testing.T, code string, outputs map[string]string, g map[string]Value, host *Host) (Value, error) {
	t.Helper()
	prog := parse(t, code)
	syntax.Walk(prog, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			if id, ok := c.Target.(*syntax.Ident); ok {
				c.Output = outputs[id.Name]
			}
		}
		return true
	})
	return Run(context.Background(), prog, g, host)
}

func TestOneOutputFallbackIsMatchedToTheOutput(t *testing.T) {
	failing := newCaller().on("fetch", func(context.Context, *CallRequest) (Value, error) { return nil, errors.New("down") })
	g := map[string]Value{"fetch": svc("fetch"), "topic": "api"}
	for _, fallback := range []string{`{ data: "fallback for " + topic }`, `"fallback for " + topic`} {
		v, err := runOutputs(t, `
let f = call fetch
  key: topic
  retries 1
  on_fail use `+fallback+`
if f.data == "fallback for " + topic:
  return { path: "fallback", data: f.data, bare: f }
return { path: "fresh", data: f.data }
`, map[string]string{"fetch": "data"}, g, &Host{Caller: failing})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := js(t, v), `{"path":"fallback","data":"fallback for api","bare":"fallback for api"}`; got != want {
			t.Errorf("on_fail use %s:\ngot  %s\nwant %s", fallback, got, want)
		}
	}
}

func TestOneOutputMemberAfterReassignment(t *testing.T) {
	n := 0
	c := newCaller().on("add-one", func(context.Context, *CallRequest) (Value, error) { n++; return int64(n), nil })
	code := `
let t = call add-one
if again:
  t = call add-one
let u = t
let sum = 0
repeat 2:
  t = call add-one
  sum = sum + t.out
return [t.out, u.out, sum]
`
	for _, again := range []bool{false, true} {
		n = 0
		v, err := runOutputs(t, code, map[string]string{"add-one": "out"}, map[string]Value{"add-one": svc("add-one"), "again": again}, &Host{Caller: c})
		if err != nil {
			t.Fatal(err)
		}
		want := `[3,1,5]`
		if again {
			want = `[4,2,7]`
		}
		if got := js(t, v); got != want {
			t.Errorf("again=%v: got %s, want %s", again, got, want)
		}
	}
}

func TestReassignmentFromAnotherValueClearsTheOutput(t *testing.T) {
	c := newCaller().on("add-one", func(context.Context, *CallRequest) (Value, error) { return int64(2), nil })
	_, err := runOutputs(t, "let t = call add-one\nt = 7\nreturn t.out\n", map[string]string{"add-one": "out"}, map[string]Value{"add-one": svc("add-one")}, &Host{Caller: c})
	wantErr(t, err, `test.md:3:10: t.out: t is integer (7), not an object, so it has no member "out"`)
}

func TestMemberOfTextNamesTheCall(t *testing.T) {
	c := newCaller().on("reviewer", func(context.Context, *CallRequest) (Value, error) {
		return "Looks good to me.\n{\"accepted\": true}", nil
	})
	_, err := run(t, "let review = call reviewer\n  draft: \"d\"\nif review.accepted:\n  return 1\nreturn 0\n", map[string]Value{"reviewer": svc("reviewer")}, &Host{Caller: c})
	wantErr(t, err, `test.md:3:11: review.accepted: review is text, not an object, so it has no member "accepted" (review is the answer of call reviewer, line 1: "Looks good to me.\n{\"accepted\": true}")`)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindRuntime {
		t.Errorf("want a runtime error, got %#v", err)
	}
	// a part of an answer names the call too
	c = newCaller().on("reviewer", func(context.Context, *CallRequest) (Value, error) {
		return jv(t, `{"verdict": "fine"}`), nil
	})
	_, err = run(t, "let review = call reviewer\nreturn review.verdict.accepted\n", map[string]Value{"reviewer": svc("reviewer")}, &Host{Caller: c})
	wantErr(t, err, `test.md:2:23: review.verdict.accepted: review.verdict is text, not an object, so it has no member "accepted" (review.verdict is part of the answer of call reviewer, line 1: "fine")`)
	// null keeps giving null (a missing answer is tested with `is null`)
	c = newCaller().on("reviewer", func(context.Context, *CallRequest) (Value, error) { return nil, nil })
	v, err := run(t, "let review = call reviewer\nreturn review.accepted\n", map[string]Value{"reviewer": svc("reviewer")}, &Host{Caller: c})
	if err != nil || v != nil {
		t.Errorf("member of null: %v, %v", v, err)
	}
}

func TestPresenceTestOfAMemberOfText(t *testing.T) {
	c := newCaller().on("arbiter", func(context.Context, *CallRequest) (Value, error) { return "abort", nil })
	got := mustRun(t, `
let d = call arbiter
let reason = d
if d.reason is present:
  reason = d.reason
return [reason, d.reason is null, d.reason.code is not present, d.length]
`, map[string]Value{"arbiter": svc("arbiter")}, &Host{Caller: c})
	if got != `["abort",true,true,5]` {
		t.Errorf("got %s", got)
	}
}

func TestJudgeSeesTheOneOutput(t *testing.T) {
	var seen []*Judgment
	judge := judgeFunc(func(j *Judgment) (Verdict, error) { seen = append(seen, j); return Verdict{Holds: true}, nil })
	c := newCaller().on("draft", func(context.Context, *CallRequest) (Value, error) { return "the text", nil })
	_, err := runOutputs(t, "let d = call draft\nif d.article reads well to an editor:\n  return 1\nreturn 0\n",
		map[string]string{"draft": "article"}, map[string]Value{"draft": svc("draft")}, &Host{Caller: c, Judge: judge, Runtime: newFakeRuntime()})
	if err != nil || len(seen) != 1 {
		t.Fatalf("%v, %d judgments", err, len(seen))
	}
	if got := js(t, seen[0].Values); got != `{"d.article":"the text"}` {
		t.Errorf("the judge saw %s", got)
	}
}

// Text that reads as a number or a boolean, compared with one, is
// explained by where it came from: a service's answer names the call, a
// quoted literal says to drop the quotes, anything else points at
// --input (an untyped input is text).
func TestTextOperandHintNamesItsSource(t *testing.T) {
	c := newCaller().on("critic", func(context.Context, *CallRequest) (Value, error) {
		return jv(t, `{"accepted": "true", "score": "0.9"}`), nil
	})
	g := map[string]Value{"critic": svc("critic")}
	_, err := run(t, "let v = call critic\nif v.accepted == true:\n  return 1\nreturn 0\n", g, &Host{Caller: c})
	wantErr(t, err, `test.md:2:15: cannot compare string and bool`, `(v.accepted is "true", text in the answer of call critic, line 1: make the service answer a JSON number or boolean, not text)`)
	_, err = run(t, "let v = call critic\nreturn v.score - 1\n", g, &Host{Caller: c})
	wantErr(t, err, `v.score is "0.9", text in the answer of call critic, line 1`)
	_, err = run(t, "let n = 3\nreturn n == \"3\"\n", nil, nil)
	wantErr(t, err, `("3" is text, written in quotes: write 3 without them)`)
	_, err = run(t, "return n - 1\n", map[string]Value{"n": "5"}, nil)
	wantErr(t, err, `("5" is text: a value given with --input is text unless`)
}

// A member read of a key a service's answer misspells is an error naming
// both keys and the call, not the null of a missing key; keys far from
// the name, short names differing in more than case, a presence test and
// the program's own objects still read null.
func TestNearKeyOfAnAnswer(t *testing.T) {
	answer := `{"acepted": true, "Score": 3, "id": 1, "notes": "n"}`
	c := newCaller().on("judge", func(context.Context, *CallRequest) (Value, error) {
		return jv(t, answer), nil
	})
	g := map[string]Value{"judge": svc("judge")}
	_, err := run(t, "let v = call judge\nloop until v.accepted (max: 3):\n  v = call judge\nreturn v\n", g, &Host{Caller: c})
	wantErr(t, err, `test.md:2:14: v.accepted: v has no key "accepted" but has "acepted" (v is the answer of call judge, line 3), so v.accepted would read null: make the service answer with the key "accepted", or read v.acepted`)
	_, err = run(t, "let v = call judge\nreturn v.score\n", g, &Host{Caller: c})
	wantErr(t, err, `v has no key "score" but has "Score"`)
	answer = `{"wrap": {"acepted": true}}`
	_, err = run(t, "let v = call judge\nreturn v.wrap.accepted\n", g, &Host{Caller: c})
	wantErr(t, err, `v.wrap has no key "accepted" but has "acepted" (v.wrap is part of the answer of call judge, line 1)`)
	answer = `{"acepted": true, "id": 1, "notes": "n"}`
	for _, src := range []string{
		"let v = call judge\nreturn [v.reason, v.ok, v.ip, v.accepted is present]\n",
		"let v = {acepted: true}\nreturn v.accepted\n",
	} {
		if _, err := run(t, src, g, &Host{Caller: c}); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// A member read of a key that an input given to the run misspells (a
// producer's truth, a caller's JSON) is an error too, through a name
// that passes it on, and inside it; a key far from the name, a presence
// test and a name re-bound to the program's own object read null.
func TestNearKeyOfAnInput(t *testing.T) {
	g := map[string]Value{"tickets": jv(t, `{"open_by_account": {"acme": ["t1"]}, "wrap": {"severity": "high"}}`)}
	_, err := run(t, "return tickets.open_by_acount\n", g, nil)
	wantErr(t, err, `test.md:1:16: tickets.open_by_acount: tickets has no key "open_by_acount" but has "open_by_account" (tickets is a value given to the run: an input or config), so tickets.open_by_acount would read null: read tickets.open_by_account`)
	_, err = run(t, "let t = tickets\nreturn t.wrap.severty\n", g, nil)
	wantErr(t, err, `t.wrap has no key "severty" but has "severity" (t.wrap is part of a value given to the run`)
	_, err = run(t, "return \"{tickets.open_by_acount}\"\n", g, nil)
	wantErr(t, err, `tickets has no key "open_by_acount" but has "open_by_account"`)
	for _, src := range []string{
		"return [tickets.closed, tickets.open_by_acount is present]\n",
		"let t = tickets\nt = {open_by_account: 1}\nreturn t.open_by_acount\n",
	} {
		if _, err := run(t, src, g, nil); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// A block's value keeps the mark of the expression it came from (rule
// 35 with 27a): `let v = do: ...` giving a one-output call's value reads
// v.OUT as v, exactly as binding that expression outside a block does,
// and a value that is not such a call's (a loop's list, an expression
// over it, a block's null) has no mark. Each block form is run beside
// its form without a block, and both must give the same value or the
// same error text.
func TestOneOutputThroughABlock(t *testing.T) {
	c := newCaller().on("get", func(context.Context, *CallRequest) (Value, error) {
		o := NewObject()
		o.Set("out", "inner")
		return o, nil
	})
	g := map[string]Value{"get": svc("get"), "yes": true}
	for _, tc := range []struct{ block, plain, want string }{
		{"let v = do:\n  call get\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"let v = do:\n  let r = call get\n  return r\nreturn v.out\n", "let r = call get\nlet v = r\nreturn v.out\n", `{"out":"inner"}`},
		{"block b():\n  let r = call get\n  r\nlet v = do b()\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"block b():\n  return do:\n    call get\nlet v = do b()\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"let v = do:\n  if yes:\n    call get\n  else:\n    1\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"let v = do:\n  try:\n    call get\n  finally:\n    let z = 1\n    z\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"let v = do:\n  parallel for i in [1]:\n    return call get\n  null\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"let v = do:\n  for i in [1]:\n    return call get\n  null\nreturn v.out\n", "let v = call get\nreturn v.out\n", `{"out":"inner"}`},
		{"let w = 0\nw = do:\n  call get\nreturn w.out\n", "let w = 0\nw = call get\nreturn w.out\n", `{"out":"inner"}`},
		// no mark: the member is the value's own
		{"let v = do:\n  let r = call get\n  [r][0]\nreturn v.out\n", "let r = call get\nlet v = [r][0]\nreturn v.out\n", `"inner"`},
		{"let v = do:\n  for i in [1]:\n    call get\nreturn v.out\n", "let v = for i in [1]:\n  call get\nreturn v.out\n", `error`},
		{"let v = do:\n  call get\n  let z = 2\n  z\nreturn v.out\n", "let v = 2\nreturn v.out\n", "error"},
	} {
		var got [2]string
		for i, code := range []string{tc.block, tc.plain} {
			v, err := runOutputs(t, code, map[string]string{"get": "out"}, g, &Host{Caller: c})
			if err != nil {
				_, msg, _ := strings.Cut(err.Error(), ": ")
				got[i] = "error " + msg
			} else {
				got[i] = js(t, v)
			}
		}
		if !strings.HasPrefix(got[0], tc.want) || got[0] != got[1] {
			t.Errorf("%s\n got %s\nwant %s (as %q gives %s)", tc.block, got[0], tc.want, tc.plain, got[1])
		}
	}
}
