package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/llm/llmtest"
)

func cond(text, verb string, negated bool, words ...string) *syntax.NaturalCond {
	c := &syntax.NaturalCond{Text: text, Verb: verb, Negated: negated}
	for _, w := range words {
		c.Words = append(c.Words, syntax.Word{Path: w})
	}
	return c
}

var (
	certifiesCond  = cond("verdict certifies the proposal", "certifies", false, "verdict", "the", "proposal")
	notProceedCond = cond("decision does not explicitly proceed", "proceed", true, "decision")
	adjustCond     = cond("decision says adjust", "says", false, "decision", "adjust")
	failureCond    = func() *syntax.NaturalCond {
		c := cond("failure_criteria says result is a failure", "says", false, "failure_criteria", "result")
		c.Says = &syntax.Says{Criterion: "failure_criteria", Subject: "result", Predicate: "failure", Polarity: syntax.Negative}
		return c
	}()
)

func judgment(t testing.TB, c *syntax.NaturalCond, valuesJSON string) *delegation.Judgment {
	t.Helper()
	v, err := delegation.FromJSON([]byte(valuesJSON))
	if err != nil {
		t.Fatal(err)
	}
	return &delegation.Judgment{Path: delegation.MustParsePath("L81/1"), Cond: c, Values: v.(*delegation.Object),
		Pos: diag.Position{File: "ratchet.prose.md", Line: 81, Col: 6}}
}

func newJudge(t *testing.T, srv *llmtest.Server) (*judge.Deterministic, *ModelJudge, *Client) {
	t.Helper()
	c, _ := newTestClient(t, srv, nil)
	mj := NewModelJudge(c, JudgeOptions{Pattern: "ratchet", Invariants: []string{"certified progress is never rolled back"}})
	return &judge.Deterministic{Next: mj}, mj, c
}

func TestModelJudgesProseVerdict(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"reasoning": "the critic approves", "holds": true}`, TokensIn: 120, TokensOut: 9})
	d, _, c := newJudge(t, srv)
	j := judgment(t, certifiesCond, `{"verdict": "This step is correct and well argued; I certify it."}`)
	v, err := d.Judge(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Holds || !v.Asked || v.Cached || v.Model != "judge-model" || v.TokensIn != 120 || v.TokensOut != 9 || v.Reasoning != "the critic approves" {
		t.Errorf("verdict = %+v", v)
	}
	r := srv.Requests()[0]
	if temp, ok := r.Temperature(); !ok || temp != 0 {
		t.Errorf("temperature %v %v", temp, ok)
	}
	rf := r.ResponseFormat()
	js, _ := rf["json_schema"].(map[string]any)
	schema, _ := js["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if js["name"] != "verdict" || props["holds"] == nil || props["reasoning"] == nil {
		t.Errorf("response_format = %v", rf)
	}
	msgs := r.Messages()
	if len(msgs) != 2 {
		t.Fatalf("messages = %+v", msgs)
	}
	for _, want := range []string{`"ratchet"`, "certified progress is never rolled back"} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("system prompt lacks %q: %s", want, msgs[0].Content)
		}
	}
	for _, want := range []string{"Condition: verdict certifies the proposal", `verdict = "This step is correct`} {
		if !strings.Contains(msgs[1].Content, want) {
			t.Errorf("user prompt lacks %q: %s", want, msgs[1].Content)
		}
	}
	u := c.Usage()
	if u.JudgeCalls != 1 || u.ModelCalls != 1 || u.TokensIn != 120 {
		t.Errorf("usage = %+v", u)
	}
	if s := d.Stats(); s.Decided != 0 || s.Delegated != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestStructuredVerdictsNeverReachTheModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	d, _, _ := newJudge(t, srv)
	for _, vals := range []string{
		`{"verdict": {"verdict": "certify"}}`, `{"verdict": {"certified": false}}`, `{"verdict": "reject"}`, `{"verdict": null}`,
	} {
		if _, err := d.Judge(context.Background(), judgment(t, certifiesCond, vals)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Judge(context.Background(), judgment(t, failureCond, `{"failure_criteria": null, "result": "x"}`)); err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 0 {
		t.Errorf("the model server got %d requests", srv.Count())
	}
	if s := d.Stats(); s.Decided != 5 {
		t.Errorf("stats = %+v", s)
	}
}

func TestVerdictCacheAndSingleFlight(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"reasoning": "yes", "holds": true}`, Delay: llmtest.Duration(100 * time.Millisecond)},
		llmtest.Verdict(false, "other values"))
	_, mj, c := newJudge(t, srv)
	const n = 10
	var wg sync.WaitGroup
	verdicts := make([]delegation.Verdict, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := mj.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "looks right"}`))
			if err != nil {
				t.Error(err)
			}
			verdicts[i] = v
		}()
	}
	wg.Wait()
	asked, cached := 0, 0
	for _, v := range verdicts {
		if !v.Holds {
			t.Errorf("verdict %+v", v)
		}
		if v.Asked {
			asked++
		}
		if v.Cached {
			cached++
			if v.TokensIn != 0 {
				t.Errorf("cached verdict with tokens: %+v", v)
			}
		}
	}
	if srv.Count() != 1 || asked != 1 || cached != n-1 {
		t.Errorf("%d requests, %d asked, %d cached", srv.Count(), asked, cached)
	}
	// Different values are a different judgment.
	v, err := mj.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "looks wrong"}`))
	if err != nil || v.Holds || srv.Count() != 2 {
		t.Errorf("verdict %+v, err %v, %d requests", v, err, srv.Count())
	}
	if u := c.Usage(); u.JudgeCalls != 2 || u.JudgeCached != n-1 {
		t.Errorf("usage = %+v", u)
	}
	// A fail-closed judgment is asked with another prompt: not the same
	// cache entry.
	srv.Push(llmtest.Verdict(true, "guarded"))
	g := judgment(t, certifiesCond, `{"verdict": "looks right"}`)
	g.FailClosed = true
	if v, err := mj.Judge(context.Background(), g); err != nil || v.Cached || srv.Count() != 3 {
		t.Errorf("fail-closed verdict %+v, err %v, %d requests", v, err, srv.Count())
	}
}

func TestJudgeFallsBackToPlainJSON(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Status(400, "response_format json_schema is not supported by this server"),
		llmtest.Text("Sure.\n```json\n{\"reasoning\": \"the result reports an error\", \"holds\": true}\n```"))
	d, _, _ := newJudge(t, srv)
	v, err := d.Judge(context.Background(), judgment(t, failureCond, `{"failure_criteria": "the output must compile", "result": "compile error at line 3"}`))
	if err != nil || !v.Holds || v.Reasoning != "the result reports an error" {
		t.Fatalf("verdict %+v, err %v", v, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].ResponseFormat() != nil {
		t.Fatalf("%d requests", len(reqs))
	}
	user := reqs[1].Messages()[1].Content
	for _, want := range []string{"Condition: failure_criteria says result is a failure", "`failure_criteria` is the rubric", "whether `result` is a failure.",
		`failure_criteria = "the output must compile"`} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q: %s", want, user)
		}
	}
}

func TestUnreadableVerdict(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "I think it is fine.", Times: 2})
	d, _, _ := newJudge(t, srv)
	_, err := d.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "meh"}`))
	if err == nil {
		t.Fatal("no error for an unreadable verdict")
	}
	var c interface{ Catchable() bool }
	if !errors.As(err, &c) || !c.Catchable() {
		t.Errorf("an unreadable verdict is not marked catchable: %T", err)
	}
	for _, want := range []string{"ratchet.prose.md:81:6", `"verdict certifies the proposal"`, "could not be read after 2 asks"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if m := reqs[1].Messages(); len(m) != 4 || m[2].Role != "assistant" || !strings.Contains(m[3].Content, "not the JSON object") {
		t.Errorf("second ask = %+v", m)
	}
}

func TestFailClosed(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: "hmm", Times: -1})
	d, _, _ := newJudge(t, srv)
	j := judgment(t, notProceedCond, `{"decision": "looks safe to me"}`)
	j.FailClosed = true
	v, err := d.Judge(context.Background(), j)
	if err != nil || !v.Holds || !strings.Contains(v.Reasoning, "failing closed") {
		t.Fatalf("verdict %+v, err %v: want the blocking answer", v, err)
	}
	if !strings.Contains(srv.Requests()[0].Messages()[0].Content, "answer holds=true") {
		t.Error("the prompt does not say which answer is the cautious one")
	}
	// A positive guard whose block commits: when unsure, do not commit.
	j = judgment(t, certifiesCond, `{"verdict": "hmm, maybe"}`)
	j.FailClosed = true
	if v, err := d.Judge(context.Background(), j); err != nil || v.Holds {
		t.Errorf("verdict %+v, err %v: want holds=false", v, err)
	}
	// Not fail-closed: an error naming the condition.
	j = judgment(t, adjustCond, `{"decision": "let us tweak the brief"}`)
	if _, err := d.Judge(context.Background(), j); err == nil || !strings.Contains(err.Error(), "decision says adjust") {
		t.Errorf("err = %v", err)
	}
}

func TestJudgeTransportErrorNamesConditionNotKey(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Status(401, "bad key "+testKey))
	d, _, c := newJudge(t, srv)
	_, err := d.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "ok I guess"}`))
	if err == nil || !strings.Contains(err.Error(), "verdict certifies the proposal") || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	noKey(t, err.Error(), fmt.Sprintf("%+v", c.Usage()))
}

func TestLongValuesAreTruncated(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Verdict(false, "too long to tell"))
	c, _ := newTestClient(t, srv, nil)
	mj := NewModelJudge(c, JudgeOptions{MaxValueBytes: 100})
	long := strings.Repeat("é", 500)
	if _, err := mj.Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "`+long+`"}`)); err != nil {
		t.Fatal(err)
	}
	user := srv.Requests()[0].Messages()[1].Content
	if !strings.Contains(user, "[truncated: the first 99 of 1002 bytes shown]") || strings.Contains(user, long) {
		t.Errorf("prompt = %s", user)
	}
}

func TestParseVerdict(t *testing.T) {
	cases := []struct {
		in        string
		holds, ok bool
	}{
		{`{"reasoning": "x", "holds": true}`, true, true},
		{`{"holds": false}`, false, true},
		{"```json\n{\"holds\": true, \"reasoning\": \"r\"}\n```", true, true},
		{`Here: {"a": {"b": 1}} then {"holds": "false"}`, false, true},
		{`{"holds": "maybe"}`, false, false},
		{`{"holds": tru`, false, false},
		{`no json`, false, false},
		{" Yes.\n", true, true},
		{"`false`", false, true},
		{"no way", false, false},
		{``, false, false},
		// two verdicts that disagree are none; two that agree are one
		{`{"holds": true} on reflection {"holds": false}`, false, false},
		{`{"holds": true}{"holds": "yes"}`, true, true},
	}
	for _, tc := range cases {
		holds, _, ok := ParseVerdict(tc.in)
		if holds != tc.holds || ok != tc.ok {
			t.Errorf("ParseVerdict(%q) = %v, %v; want %v, %v", tc.in, holds, ok, tc.holds, tc.ok)
		}
	}
}
