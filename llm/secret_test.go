package llm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/llm/llmtest"
)

// TestKeyNeverShown makes servers echo the API key in every place they can
// and checks every error, verdict and summary the package produces.
func TestKeyNeverShown(t *testing.T) {
	echo := "your key " + testKey + " is wrong"
	scenarios := [][]llmtest.Reply{
		{llmtest.Status(401, echo)},
		{llmtest.Status(403, echo)},
		{llmtest.Status(404, echo)},
		{llmtest.Status(400, echo)},
		{{Status: 500, Body: "<html>" + echo + "</html>", Times: -1}},
		{{Status: 429, Content: echo, Header: map[string]string{"Retry-After": "9999"}}},
		{{Body: "not json " + echo, Times: -1}},
		{{Content: echo, Times: -1}}, // an unreadable verdict quoting the key
	}
	var outs []string
	for i, script := range scenarios {
		srv := llmtest.NewServer(t, script...)
		c, _ := newTestClient(t, srv, func(c *Config) { c.MaxRetries = 1 })
		mj := NewModelJudge(c, JudgeOptions{})
		d := &judge.Deterministic{Next: mj}
		j := judgment(t, certifiesCond, `{"verdict": "unclear"}`)
		v, err := d.Judge(context.Background(), j)
		if err == nil {
			t.Errorf("scenario %d: no error (verdict %+v)", i, v)
		} else {
			outs = append(outs, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		}
		// The same data on a fail-closed guard gives a verdict, not an error.
		g := judgment(t, notProceedCond, `{"decision": "unclear"}`)
		g.FailClosed = true
		if v, err := d.Judge(context.Background(), g); err == nil {
			outs = append(outs, v.Reasoning, fmt.Sprintf("%+v", v))
		} else {
			outs = append(outs, err.Error())
		}
		_, err = NewSlotService(c, SlotInfo{Slot: "worker"}).Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()})
		if err != nil {
			outs = append(outs, err.Error())
		}
		outs = append(outs, c.Usage().String())
	}
	noKey(t, outs...)
	if joined := strings.Join(outs, "\n"); !strings.Contains(joined, "[redacted]") {
		t.Error("no redaction happened: the scenarios do not echo the key")
	}
}

func TestJudgeAlwaysAtTemperatureZero(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Verdict(true, "ok"), llmtest.Text("slot reply"))
	c, _ := newTestClient(t, srv, func(c *Config) { c.Temperature = 0.7 })
	if _, err := NewModelJudge(c, JudgeOptions{}).Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "hm"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSlotService(c, SlotInfo{Slot: "w"}).Call(context.Background(), &delegation.CallRequest{Args: delegation.NewObject()}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if temp, ok := reqs[0].Temperature(); !ok || temp != 0 {
		t.Errorf("judge temperature %v %v", temp, ok)
	}
	if temp, _ := reqs[1].Temperature(); temp != 0.7 {
		t.Errorf("slot temperature %v", temp)
	}
}

// TestKeyNeverShownNewShapes: servers echo the key inside a 200 error
// object, a refusal and a judge's reasoning.
func TestKeyNeverShownNewShapes(t *testing.T) {
	echo := "your key " + testKey + " is wrong"
	srv := llmtest.NewServer(t,
		llmtest.Reply{Body: `{"error":{"code":401,"message":"` + echo + `"}}`},
		llmtest.Reply{Body: completion(`{"role":"assistant","content":null,"refusal":"`+echo+`"}`, "stop", "")},
		llmtest.Verdict(true, echo))
	c, _ := newTestClient(t, srv, nil)
	var outs []string
	for i := 0; i < 2; i++ {
		_, err := chat(t, c)
		if err == nil {
			t.Fatalf("ask %d: no error", i)
		}
		outs = append(outs, err.Error(), fmt.Sprintf("%+v", err))
	}
	v, err := NewModelJudge(c, JudgeOptions{}).Judge(context.Background(), judgment(t, certifiesCond, `{"verdict": "hm"}`))
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, v.Reasoning)
	noKey(t, outs...)
}

// TestCredentialsInBaseURL: a key written in the base URL's user
// information or query never shows, also in Go's *url.Error ("Post
// \"http://KEY@host/...\": dial tcp ...") and in configuration errors.
func TestCredentialsInBaseURL(t *testing.T) {
	closed := llmtest.Start()
	host := strings.TrimPrefix(strings.TrimSuffix(closed.URL, "/v1"), "http://")
	closed.Close()
	live := llmtest.NewServer(t, llmtest.Reply{Status: 500, Content: "boom", Times: -1})
	liveHost := strings.TrimPrefix(strings.TrimSuffix(live.URL, "/v1"), "http://")
	bases := []string{
		"http://" + testKey + "@" + host + "/v1",
		"http://user:" + testKey + "@" + host + "/v1",
		"http://" + testKey + ":x@" + host + "/v1",
		"http://" + host + "/v1?api-key=" + testKey,
		"http://" + testKey + "@" + liveHost + "/v1",
	}
	var outs []string
	for _, base := range bases {
		c, err := NewClient(Config{Model: "m", BaseURL: base, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		_, err = chat(t, c)
		if err == nil {
			t.Fatalf("no error for an unreachable server")
		}
		outs = append(outs, err.Error(), fmt.Sprintf("%+v", err))
		for _, s := range c.cfg.Secrets() {
			if strings.Contains(s, "[redacted]") {
				t.Errorf("secret list holds a redacted form: %q", s)
			}
		}
	}
	// A base URL that does not parse: the configuration error hides it.
	_, err := NewClient(Config{Model: "m", BaseURL: "http://" + testKey + "@host:port:x/v1"}, nil)
	if err == nil {
		t.Fatal("no error for a broken base URL")
	}
	outs = append(outs, err.Error())
	noKey(t, outs...)
	if !strings.Contains(strings.Join(outs, "\n"), "cannot reach") {
		t.Errorf("the errors do not say what happened: %q", outs)
	}
}

// TestSecretsEncodedForms: a key with characters that URLs escape is
// redacted in its escaped forms too.
func TestSecretsEncodedForms(t *testing.T) {
	cfg := Config{APIKey: "sk-a/b+c=SECRET", BaseURL: "http://u:p%40ss-WORD@h/v1"}
	msg := strings.Join([]string{"sk-a/b+c=SECRET", "sk-a%2Fb%2Bc%3DSECRET", "p@ss-WORD", "p%40ss-WORD"}, " ")
	got := cfg.redact(msg)
	for _, leak := range []string{"SECRET", "ss-WORD"} {
		if strings.Contains(got, leak) {
			t.Errorf("redact(%q) = %q", msg, got)
		}
	}
}
