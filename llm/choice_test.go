package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/llm/llmtest"
)

// recoveryCode is a choice whose options say which ran.
const recoveryCode = `let failure = {attempts: 3, last: "timeout"}
choice best recovery path for failure:
  option "retry":
    return "retried"
  option "fallback":
    return "fell back"
  option "abort":
    return "aborted"
`

// runChoice runs recoveryCode with the model judge of srv.
func runChoice(t *testing.T, srv *llmtest.Server) (delegation.Value, error) {
	t.Helper()
	prog, errs := syntax.ParseString("recover.prose.md", recoveryCode)
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	d, _, _ := newJudge(t, srv)
	return delegation.Run(context.Background(), prog, nil, &delegation.Host{Judge: d})
}

func TestModelPicksAnOption(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"reasoning": "three timeouts: retrying will not help", "pick": "fallback"}`})
	v, err := runChoice(t, srv)
	if err != nil || v != "fell back" {
		t.Fatalf("got %v, %v", v, err)
	}
	r := srv.Requests()[0]
	js, _ := r.ResponseFormat()["json_schema"].(map[string]any)
	schema, _ := js["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	pick, _ := props["pick"].(map[string]any)
	if js["name"] != "pick" || pick == nil || strings.Join(toStrings(pick["enum"]), ",") != "retry,fallback,abort" {
		t.Errorf("response_format = %v", r.ResponseFormat())
	}
	msgs := r.Messages()
	if len(msgs) != 2 || !strings.Contains(msgs[0].Content, "exactly one of the option labels") {
		t.Fatalf("messages = %+v", msgs)
	}
	user := msgs[1].Content
	for _, want := range []string{"Criteria: best recovery path for failure", `- "retry"`, `- "fallback"`, `- "abort"`, `failure = {"attempts":3,"last":"timeout"}`} {
		if !strings.Contains(user, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, user)
		}
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, x := range l {
		out[i], _ = x.(string)
	}
	return out
}

// A reply that names no label, or two, is asked again; a pick that is
// still none is an error (catchable, as an unreadable verdict is), never
// an option taken by default.
func TestModelPickMustBeExactlyOneLabel(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"reasoning": "either works", "pick": ["retry", "fallback"]}`},
		llmtest.Reply{Content: `{"reasoning": "fine", "pick": "fallback"}`})
	v, err := runChoice(t, srv)
	if err != nil || v != "fell back" || srv.Count() != 2 {
		t.Fatalf("got %v, %v after %d requests", v, err, srv.Count())
	}
	if msgs := srv.Requests()[1].Messages(); len(msgs) != 4 || !strings.Contains(msgs[3].Content, `"pick": "LABEL"`) {
		t.Errorf("the second ask = %+v", msgs)
	}

	srv = llmtest.NewServer(t,
		llmtest.Reply{Content: `{"reasoning": "wait and see", "pick": "postpone"}`},
		llmtest.Reply{Content: `{"pick": "retry"} or maybe {"pick": "abort"}`})
	v, err = runChoice(t, srv)
	var re *delegation.Error
	if !errors.As(err, &re) || v != nil {
		t.Fatalf("got %v, %v", v, err)
	}
	if re.Kind != delegation.KindJudge || !re.Catchable() || re.Pos.Line != 2 ||
		!strings.Contains(re.Msg, `choice "best recovery path for failure": the model's pick could not be read as exactly one of the options ["retry" "fallback" "abort"] after 2 asks`) {
		t.Errorf("error %v (kind %s, catchable %v)", err, re.Kind, re.Catchable())
	}
}

func TestParsePick(t *testing.T) {
	labels := []string{"retry", "fall back"}
	for reply, want := range map[string]string{
		`{"reasoning": "r", "pick": "retry"}`:     "retry",
		"```json\n{\"pick\": \"fall back\"}\n```": "fall back",
		`retry`:               "retry",
		`"fall back"`:         "fall back",
		`{"pick": " retry "}`: "retry",
		`{"pick": "retry"} and again {"pick": "retry"}`: "retry",
		`<think>{"pick": "x"}</think>{"pick": "retry"}`: "retry",
		`{"pick": "Retry"}`:                             "",
		`{"pick": "retry"} then {"pick": "fall back"}`:  "",
		`{"pick": ["retry"]}`:                           "",
		`{"pick": null}`:                                "",
		`{"holds": true}`:                               "",
		`retry or fall back`:                            "",
		``:                                              "",
	} {
		got, _, ok := ParsePick(reply, labels)
		if got != want || ok != (want != "") {
			t.Errorf("ParsePick(%q) = %q, %v; want %q", reply, got, ok, want)
		}
	}
}
