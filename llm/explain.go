package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// explain words e's message: what happened and what to fix.
func (c *Client) explain(e *Error, err error, ci *callInfo, model string) string {
	where := c.cfg.displayURL()
	tries := fmt.Sprintf("after %d %s", e.Attempts, plural(int64(e.Attempts), "attempt", "attempts"))
	var to *attemptTimeout
	var mal *malformedReply
	var cut *cutReply
	switch {
	case e.Attempts == 0:
		return fmt.Sprintf("the request for model %q was not sent", model)
	case e.Status == http.StatusUnauthorized:
		if c.cfg.APIKey == "" {
			return fmt.Sprintf("the model server at %s wants an API key (401): set OPENAI_API_KEY", where)
		}
		return fmt.Sprintf("the model server at %s refused the API key (401): check OPENAI_API_KEY", where)
	case e.Status == http.StatusPaymentRequired:
		return fmt.Sprintf("the model server at %s asks for payment (402): check the credits or plan of the account behind OPENAI_API_KEY", where)
	case e.Status == http.StatusForbidden:
		return fmt.Sprintf("the model server at %s forbids this request (403): the API key may lack access to model %q; check OPENAI_API_KEY and --model", where, model)
	case e.Status == http.StatusNotFound && !c.cfg.versioned():
		return fmt.Sprintf("not found at %s (404): the base URL has no API version path; OPENAI_BASE_URL includes it, as for the official SDKs: try %s",
			where, c.cfg.versionedGuess())
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf("not found at %s (404): unknown model %q or wrong base URL; check --model/PROSE_MODEL and --base-url/OPENAI_BASE_URL (OpenAI-compatible servers end in /v1, e.g. http://localhost:11434/v1)", where, model)
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("the reply of the model server at %s is too large (over %d bytes); check the server", where, maxReplyBytes)
	case e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity:
		return fmt.Sprintf("the model server at %s rejected the request for model %q (%d)", where, model, e.Status)
	case e.Status == http.StatusTooManyRequests:
		if ci.retryAfter > c.cfg.MaxRetryAfter {
			return fmt.Sprintf("rate limited by the model server at %s (429): it asks to wait longer than %s", where, c.cfg.MaxRetryAfter)
		}
		return fmt.Sprintf("rate limited by the model server at %s (429) %s", where, tries)
	case errors.As(err, &to):
		return fmt.Sprintf("no reply from the model server at %s within %s (%s); raise PROSE_MODEL_TIMEOUT or check the server", where, c.cfg.Timeout, tries)
	case errors.As(err, &mal) || (e.Status/100 == 2 && isDecodeError(err)):
		return fmt.Sprintf("malformed reply from the model server at %s %s (not Chat Completions JSON); check --base-url/OPENAI_BASE_URL", where, tries)
	case errors.As(err, &cut):
		return fmt.Sprintf("the model server at %s broke off its reply mid-way %s (the connection closed after the headers, status %d); check the server or a proxy in between", where, tries, cut.status)
	case ci.midGeneration:
		return fmt.Sprintf("the model server at %s failed while generating the reply (finish_reason \"error\", read as %d) %s", where, e.Status, tries)
	case e.Status >= 500 || e.Status == http.StatusRequestTimeout || e.Status == http.StatusConflict:
		return fmt.Sprintf("the model server at %s failed (%d) %s", where, e.Status, tries)
	case e.Status >= 400:
		return fmt.Sprintf("the model server at %s answered %d", where, e.Status)
	}
	return fmt.Sprintf("cannot reach the model server at %s %s; check --base-url/OPENAI_BASE_URL", where, tries)
}

// isDecodeError reports whether err came from decoding a reply body.
func isDecodeError(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF)
}
