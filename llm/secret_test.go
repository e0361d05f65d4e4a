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
