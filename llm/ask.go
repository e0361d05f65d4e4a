package llm

import (
	"context"
	"time"

	"github.com/proselang/prose/delegation"
)

// ask sends one user message under system, to model (the client's when
// ""), and tells req.Exchanged what was sent and answered.
func (c *Client) ask(ctx context.Context, model, system, user string, req *delegation.CallRequest) (ChatReply, error) {
	used := model
	if used == "" {
		used = c.Model()
	}
	start := time.Now()
	cr := ChatRequest{Model: model, System: system, Messages: []Message{{Role: "user", Content: user}}}
	reply, err := c.Chat(ctx, cr)
	if req.Exchanged != nil {
		x := ExchangeOf(cr, used, reply, err, start)
		x.System, x.Prompt = system, user
		req.Exchanged(x)
	}
	return reply, err
}
