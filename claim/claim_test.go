package claim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
)

func val(t *testing.T, js string) delegation.Value {
	t.Helper()
	v, err := delegation.FromJSON([]byte(js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// Each deterministic form, once with a value that satisfies it and once
// with one that does not; the rule that decided is checked too, so a form
// that silently fell through to another cannot pass.
func TestDeterministicForms(t *testing.T) {
	cases := []struct {
		claim      string
		pass, fail string // JSON values
		rule       string
	}{
		{"contains `kind test`", `"a kind test smoke"`, `"a smoke"`, "contains"},
		{"contains the exact phrase `caller-input-smoke-pass`", `"x caller-input-smoke-pass."`, `"caller input smoke pass"`, "contains"},
		{`includes "b"`, `["a", "b"]`, `["a", "c"]`, "contains"},
		{"contains the key `step`", `{"step": 1}`, `{"steps": 1}`, "contains"},
		{"does not contain `error`", `"all good"`, `"an error"`, "contains"},
		{"equals 3", `3`, `4`, "equals"},
		{`equals {"a": [1, 2]}`, `{"a": [1, 2]}`, `{"a": [2, 1]}`, "equals"},
		{"is `certify`", `"certify"`, `"reject"`, "equals"},
		{"is true", `true`, `false`, "equals"},
		{"is not `reject`", `"certify"`, `"reject"`, "equals"},
		{"== 2.5", `2.5`, `2`, "equals"},
		{"is null", `null`, `0`, "presence"},
		{"is not null", `""`, `null`, "presence"},
		{"is present", `[]`, `null`, "presence"},
		{"exists", `false`, `null`, "presence"},
		{"does not exist", `null`, `"x"`, "presence"},
		{"is empty", `[]`, `[0]`, "presence"},
		{"is not empty", `{"a": 1}`, `{}`, "presence"},
		{"non-empty", `["a"]`, `[]`, "presence"},
		{"not empty", `"x"`, `""`, "presence"},
		{"has key sections", `{"sections": []}`, `{"section": []}`, "has-key"},
		{"is absent", `null`, `1`, "presence"},
		{"has 3 items", `[1, 2, 3]`, `[1, 2]`, "count"},
		{"has at least 2 items", `[1, 2, 3]`, `[1]`, "count"},
		{"has at most 2 entries", `{"a": 1}`, `{"a": 1, "b": 2, "c": 3}`, "count"},
		{"has fewer than 2 elements", `[]`, `[1, 2]`, "count"},
		{"has more than 1 item", `[1, 2]`, `"12"`, "count"},
		{"is under 5 words", `"one two three"`, `"one two three four five"`, "count"},
		{"has at most 10 characters", `"short"`, `"much too long a text"`, "count"},
		{"has exactly 2 lines", "\"a\\nb\\n\"", `"a"`, "count"},
		{"length is at least 2", `["a", "b"]`, `["a"]`, "count"},
		{"length >= 1", `[0]`, `[]`, "count"},
		{"has length 2", `{"a": 1, "b": 2}`, `[1]`, "count"},
		{"is at least 0.5", `0.5`, `0.4`, "compare"},
		{"is less than 10", `9`, `10`, "compare"},
		{"> 3", `4`, `"4"`, "compare"},
		{"<= 1", `1`, `1.5`, "compare"},
		{"is between 1 and 5", `5`, `6`, "range"},
		{"is_integer_between(0, 100)", `42`, `42.5`, "range"},
		{"is_integer_between(0, 100)", `100`, `101`, "range"},
		{"is_number_between(0, 1)", `0.25`, `-0.1`, "range"},
		{"is_integer", `7`, `7.5`, "type"},
		{"is a string", `"x"`, `1`, "type"},
		{"is_list", `[]`, `{}`, "type"},
		{"is an object", `{}`, `[]`, "type"},
		{"is_boolean", `false`, `"false"`, "type"},
		{"matches /^v\\d+\\.\\d+$/", `"v1.2"`, `"version 1.2"`, "matches"},
		{"matches the regular expression `[a-z]+-pass`", `"smoke-pass"`, `"smoke-PASS"`, "matches"},
		{"does not match /fail/", `"ok"`, `"failed"`, "matches"},
		{"has key `verdict`", `{"verdict": "ok"}`, `{"verdict": null}`, "has-key"},
		{"every item is_integer_between(1, 3)", `[1, 2, 3]`, `[1, 4]`, "every"},
		{"every item has key `step`", `[{"step": 1}, {"step": 2}]`, `[{"step": 1}, {}]`, "every"},
		{"all items are not null", `[0, ""]`, `[1, null]`, "every"},
		{"every element contains `ok`", `[]`, `"ok"`, "every"},
		{"is one of low, medium or high", `"medium"`, `"urgent"`, "one-of"},
		{"is one of `low`, `high`", `"high"`, `"High"`, "one-of"},
		{"is one of 1, 2, 3", `2`, `4`, "one-of"},
		{"is not one of draft, rejected", `"final"`, `"draft"`, "one-of"},
		{"is one of ok or null", `null`, `"nok"`, "one-of"},
		{`starts with "Re:"`, `"Re: the plan"`, `"re: the plan"`, "affix"},
		{"begins with `#`", `"# Title"`, `"Title #"`, "affix"},
		{`ends with "."`, `"Done."`, `"Done"`, "affix"},
		{`does not start with "draft"`, `"final"`, `"draft 2"`, "affix"},
		{`doesn't end with "TODO"`, `"ok"`, `"fix: TODO"`, "affix"},
		// should, must and shall say the form's verb
		{"should be 2", `2`, `3`, "equals"},
		{"must be at least 0.5", `0.5`, `0.4`, "compare"},
		{"should not be null", `1`, `null`, "presence"},
		{"must contain `ok`", `"is ok"`, `"no"`, "contains"},
		{"should not contain `TODO`", `"done"`, `"a TODO"`, "contains"},
		{"shall have 2 items", `[1, 2]`, `[1]`, "count"},
		{`should start with "Re:"`, `"Re: x"`, `"x"`, "affix"},
		// The Delegation language's own conditions, with the value bound
		// under its name.
		{"> 2 and score < 5", `3`, `6`, "condition"},
		{"is present and score != 0", `1`, `0`, "condition"},
		{"certifies the proposal", `{"verdict": "certify"}`, `{"verdict": "reject"}`, "condition"},
	}
	ctx := context.Background()
	for _, c := range cases {
		for _, want := range []bool{true, false} {
			js := c.fail
			if want {
				js = c.pass
			}
			v := val(t, js)
			q := Question{Path: "score", Claim: c.claim, Value: v, Scope: map[string]delegation.Value{"score": v}}
			r, ok := Decide(ctx, q)
			if !ok {
				t.Errorf("%q on %s: not decided without a model", c.claim, js)
				continue
			}
			if r.Holds != want || r.Rule != c.rule {
				t.Errorf("%q on %s: holds %v by %q, want %v by %q", c.claim, js, r.Holds, r.Rule, want, c.rule)
			}
		}
	}
}

// A claim about the whole result reads the outputs by name.
func TestConditionOverOutputs(t *testing.T) {
	scope := map[string]delegation.Value{"attempts": int64(2), "result": "done"}
	for claim, want := range map[string]bool{
		`attempts <= 3 and result == "done"`: true,
		`attempts > 2`:                       false,
	} {
		r, ok := Decide(context.Background(), Question{Claim: claim, Scope: scope})
		if !ok || r.Holds != want || r.Rule != "condition" {
			t.Errorf("%q: holds %v, decided %v, rule %q; want %v", claim, r.Holds, ok, r.Rule, want)
		}
	}
}

// Sentences only a reader can judge are left to the model, even when they
// start like a form.
func TestUndecided(t *testing.T) {
	for _, claim := range []string{
		"contains at least five bullet points",
		"is polite and concise",
		"mentions authentication or auth handling",
		"contains fabricated citations",
		"matches /(unclosed/",
		"every item is relevant to the topic",
		"undefined_name > 3",
		"is one of many",
		"is one of the best answers",
		"is one of the following: a, b",
		"should be polite and concise",
		"must be accurate",
	} {
		q := Question{Path: "summary", Claim: claim, Value: "text", Scope: map[string]delegation.Value{"summary": "text"}}
		if r, ok := Decide(context.Background(), q); ok {
			t.Errorf("%q: decided without a model (%+v)", claim, r)
		}
	}
}

func TestNeedsModelWithoutOne(t *testing.T) {
	var c Checker
	_, err := c.Check(context.Background(), Question{Path: "summary", Claim: "is polite", Value: "hi"})
	if !errors.Is(err, ErrNeedsModel) || !strings.Contains(err.Error(), "summary is polite") {
		t.Fatalf("err = %v, want ErrNeedsModel naming the claim", err)
	}
}

// A claim the data cannot decide asks the model once per distinct
// question (claim and value), however often it is checked; a claim the
// data decides never asks.
func TestModelAskedOncePerQuestion(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Match: "is polite", Content: `{"reasoning": "courteous", "holds": true}`, Times: -1},
		llmtest.Reply{Match: "is rude", Content: `{"reasoning": "not rude", "holds": false}`, Times: -1})
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "judge-model", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := &Checker{Model: llm.NewModelJudge(c, llm.JudgeOptions{Pattern: "test"})}
	ctx := context.Background()
	ask := func(claim, value string) Result {
		t.Helper()
		r, err := ch.Check(ctx, Question{Path: "reply", Claim: claim, Value: value})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for i := 0; i < 3; i++ {
		if r := ask("is polite", "Thank you kindly."); !r.Holds || r.Rule != "model" {
			t.Fatalf("is polite: %+v", r)
		}
		if r := ask("is rude", "Thank you kindly."); r.Holds {
			t.Fatalf("is rude: %+v", r)
		}
		ask("contains `Thank`", "Thank you kindly.")
	}
	if n := srv.Count(); n != 2 {
		t.Fatalf("model asked %d times for 2 distinct questions", n)
	}
	ask("is polite", "Go away.") // another value: another question
	if n := srv.Count(); n != 3 {
		t.Fatalf("model asked %d times, want 3 after a new value", n)
	}
	reqs := srv.Requests()
	if temp, ok := reqs[0].Temperature(); !ok || temp != 0 {
		t.Errorf("temperature %v (set %v), want 0", temp, ok)
	}
	if !strings.Contains(string(reqs[0].Body), "reply is polite") {
		t.Errorf("the question does not name the claim: %s", reqs[0].Body)
	}
}

// A judgment that fails names the claim's place in the test file, once,
// and no placeholder position ("-:").
func TestFailedJudgmentNamesThePosition(t *testing.T) {
	ch := &Checker{Model: failingJudge{}}
	pos := diag.Position{File: "t.test.prose.md", Line: 12, Col: 1}
	_, err := ch.Check(context.Background(), Question{Path: "reply", Claim: "is polite", Value: "hi", Pos: pos})
	if err == nil || !strings.HasPrefix(err.Error(), "t.test.prose.md:12:1: ") || strings.Contains(err.Error(), "-: ") {
		t.Fatalf("err = %v, want it to start at t.test.prose.md:12:1", err)
	}
	_, err = ch.Check(context.Background(), Question{Path: "reply", Claim: "is polite", Value: "hi"})
	if err == nil || !strings.HasPrefix(err.Error(), `judging "reply is polite": `) {
		t.Fatalf("err = %v, want the claim named", err)
	}
}

// failingJudge fails like the model judge does: with the judgment's
// position and condition.
type failingJudge struct{}

func (failingJudge) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j.Pos.IsValid() {
		return delegation.Verdict{}, errors.New(j.Pos.String() + ": judging condition: no server")
	}
	return delegation.Verdict{}, errors.New("no server")
}

// A claim about a value of a kind its form cannot read is neither true
// nor false of it: Mismatch says why, Holds is false, and a negation
// keeps it false, so an Expects Not item does not pass on a type error.
func TestMismatchIsNeitherTrueNorFalse(t *testing.T) {
	for _, tc := range []struct{ claim, value, want string }{
		{"is at least 0.95", `"0.99"`, "a string, not a number"},
		{"is between 1 and 5", `null`, "null, not a number"},
		{"has more than 5 items", `"a, b"`, "a string, not a list"},
		{"does not have more than 5 items", `"a, b"`, "a string, not a list"},
		{"every item is at least 1", `[2, "3"]`, "item 1 is a string, not a number"},
		{"equals 3", `"3"`, `text "3", not a number`},
		{"is not 3", `" 3"`, `text " 3", not a number`},
		{"is true", `"true"`, `text "true", not a boolean`},
		{`contains "1"`, `12`, "an integer, not text, a list or an object"},
		{"does not contain `3`", `12`, "an integer, not text, a list or an object"},
		{`includes "t"`, `true`, "a bool, not text, a list or an object"},
		{"is one of 1, 2", `"2"`, `text "2", not a number`},
		{"is not one of low, high", `["low"]`, "a list, not one value"},
		{`starts with "a"`, `["a", "b"]`, "a list, not text"},
		{`does not end with "1"`, `21`, "an integer, not text"},
	} {
		v, err := delegation.FromJSON([]byte(tc.value))
		if err != nil {
			t.Fatal(err)
		}
		r, ok := Decide(context.Background(), Question{Path: "x", Claim: tc.claim, Value: v})
		if !ok || r.Holds || r.Mismatch != tc.want {
			t.Errorf("%s of %s: %+v %v; want a mismatch %q", tc.claim, tc.value, r, ok, tc.want)
		}
	}
}
