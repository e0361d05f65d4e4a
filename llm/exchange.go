package llm

import (
	"time"

	"github.com/proselang/prose/delegation"
)

// Output types of an exchange (gen_ai.output.type in a trace).
const (
	outputJSON = "json"
	outputText = "text"
)

// ExchangeOf is what a service tells its run of one model request: the
// request r it sent (asked for requestModel), the reply and error Chat
// returned, from start until now. System and Prompt are the caller's to
// set.
func ExchangeOf(r ChatRequest, requestModel string, reply ChatReply, err error, start time.Time) delegation.Exchange {
	out := outputText
	if r.Schema != nil {
		// Asked for JSON, as response_format or, after a server refused
		// that, as instructions: the reply is JSON either way.
		out = outputJSON
	}
	return delegation.Exchange{Model: reply.Model, Reply: reply.Content,
		TokensIn: reply.TokensIn, TokensOut: reply.TokensOut, RequestModel: requestModel, FinishReason: reply.FinishReason,
		Duration: time.Since(start), Err: err,
		ResponseID: reply.ID, Temperature: reply.Temperature, MaxTokens: reply.MaxTokens, OutputType: out}
}
