package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
)

// SlotInfo describes the slot a model acts in, taken from the spec by the
// caller (this package does not depend on the spec types).
type SlotInfo struct {
	Pattern     string // the pattern's name
	Description string // what the pattern does
	Slot        string // the slot's name
	// Name is how the service prints ("candidates[1]"); "" means Slot.
	Name      string
	Requires  string // the slot's requires/ensures/maintains, free text
	Ensures   string
	Maintains string
	Role      string // the slot's role in the pattern's Shape
	// Model overrides the client's model (`--slot NAME=llm:MODEL`).
	Model string
}

// SlotService is a model acting in a slot: a delegation.Service whose
// Call sends the call's arguments to the model and returns its reply,
// parsed as JSON when it is JSON (a ```json fence is stripped), else the
// trimmed text. Errors are returned, so the call's retries and on_fail
// apply; where the slot's ensures allows a failure ("a result, or a
// thrown error"), the model is told to reply {"error": "why"} when it
// cannot deliver, and such a reply is an error too.
type SlotService struct {
	client *Client
	info   SlotInfo
	system string
}

// NewSlotService returns the service for info on c.
func NewSlotService(c *Client, info SlotInfo) *SlotService {
	return &SlotService{client: c, info: info, system: SlotSystemPrompt(info)}
}

// ServiceName implements delegation.Service.
func (s *SlotService) ServiceName() string {
	if s.info.Name != "" {
		return s.info.Name
	}
	return s.info.Slot
}

// Call implements the runner's service interface: one attempt of a call.
func (s *SlotService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	user, cut, err := BoundedUserMessage(req.Args, s.client.cfg.MaxValueBytes)
	if err != nil {
		return nil, err
	}
	reply, err := s.client.ask(ctx, s.info.Model, s.system, user, req)
	if err != nil {
		if len(cut) > 0 && ctx.Err() == nil {
			err = fmt.Errorf("%w (the prompt carried these arguments cut to %d bytes each: %s; PROSE_MAX_VALUE_BYTES sets the bound)",
				err, s.client.cfg.MaxValueBytes, strings.Join(cut, ", "))
		}
		return nil, stopped(ctx, err)
	}
	switch {
	case reply.Truncated:
		return nil, fmt.Errorf("the model's reply was cut off at the output limit of %d tokens (finish_reason \"length\") after %d bytes: "+
			"raise PROSE_MAX_TOKENS if the answer is meant to be this long; a model that repeats itself will not finish at any limit",
			s.client.maxTokens(ChatRequest{}), len(reply.Content))
	case len(reply.Content) > MaxSlotReplyBytes:
		return nil, fmt.Errorf("the model's reply is %d bytes, over the %d a slot accepts", len(reply.Content), MaxSlotReplyBytes)
	}
	// A model may echo what it was sent, a credential included: it is
	// gone before the reply becomes a value that outputs, traces and
	// journals could show.
	v, err := ParseReply(s.client.Redact(reply.Content))
	if err != nil {
		return nil, err
	}
	if msg, ok := reportedError(v); ok && mayFail(s.info) {
		return nil, fmt.Errorf("the model reports that it cannot deliver: %s", excerpt(msg, 500))
	}
	if v == "" {
		if reply.Thinking != "" {
			return nil, errors.New("the model returned only its reasoning (<think>), no answer")
		}
		return nil, errors.New("the model returned an empty reply")
	}
	return v, nil
}

// MaxSlotReplyBytes caps the reply a model acting in a slot may give: far
// more than any model writes in one answer, so a larger one is a server
// fault, not a result to pass on.
const MaxSlotReplyBytes = 4 << 20

// SlotSystemPrompt is the system prompt for a model acting in a slot.
func SlotSystemPrompt(info SlotInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You act as the %q slot", info.Slot)
	if info.Pattern != "" {
		fmt.Fprintf(&b, " of the pattern %q", info.Pattern)
	}
	b.WriteString(", one step of a workflow run by a program.")
	line := func(label, text string) {
		if text = strings.TrimSpace(text); text != "" {
			fmt.Fprintf(&b, "\n%s: %s", label, text)
		}
	}
	line("\nThe pattern", info.Description)
	line("Your role", info.Role)
	line("You receive (requires)", info.Requires)
	line("You must deliver (ensures)", info.Ensures)
	line("You must keep (maintains)", info.Maintains)
	b.WriteString("\n\nThe user message holds the call's arguments. Reply with the result only: " +
		"a JSON value when the result is structured, otherwise plain text, without commentary.")
	if decides(info) {
		b.WriteString(` When your answer accepts or rejects something, make it a JSON object whose "verdict" field says so ` +
			`(certify, accept, approve, reject, proceed, adjust or abort) beside your reasons, unless the arguments ask for another form.`)
	}
	if mayFail(info) {
		b.WriteString(` If you cannot deliver the result, reply with only {"error": "what went wrong"}: the workflow counts that as a failed attempt.`)
	}
	return b.String()
}

// decides reports whether a slot gives verdicts whose form the spec
// leaves open: its name or deliverable speaks of a decision, and the
// deliverable spells no structure of its own (`{proceed: boolean}`).
func decides(info SlotInfo) bool {
	if strings.Contains(info.Ensures, "{") {
		return false
	}
	text := strings.ToLower(info.Slot + " " + info.Ensures)
	for _, w := range []string{"verdict", "certif", "approv", "accept", "reject", "decision", "decide", "judge", "critic", "arbiter"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// mayFail reports whether the slot's deliverable allows a failure ("a
// result, or a thrown error"): a model in it is told how to report one.
func mayFail(info SlotInfo) bool {
	e := strings.ToLower(info.Ensures)
	return strings.Contains(e, "error") || strings.Contains(e, "throw")
}

// reportedError returns the message of a reply that is only
// {"error": "message"}.
func reportedError(v delegation.Value) (string, bool) {
	o, ok := v.(*delegation.Object)
	if !ok || o.Len() != 1 {
		return "", false
	}
	msg, _ := o.Get("error")
	s, ok := msg.(string)
	return s, ok && strings.TrimSpace(s) != ""
}

// SlotUserMessage is the user message for a call: the `prompt` argument
// first where there is one, then the other arguments as a JSON object.
// Each value is bounded by DefaultMaxValueBytes (see BoundedUserMessage).
func SlotUserMessage(args *delegation.Object) (string, error) {
	msg, _, err := BoundedUserMessage(args, DefaultMaxValueBytes)
	return msg, err
}

// BoundedUserMessage is SlotUserMessage with each argument bounded by
// limit bytes: a longer string is cut at a character boundary, a longer
// structured value becomes the start of its JSON as a string, and each
// ends with a marker naming the argument and its size, so the model
// knows it sees a part. cut lists what was cut, as "name (N bytes)".
//
// An earlier reply passed on whole could push the next request past the
// model's context, a 400 that ends the run; a part of it, marked, is a
// request the model can still answer.
func BoundedUserMessage(args *delegation.Object, limit int) (msg string, cut []string, err error) {
	rest := delegation.NewObject()
	prompt := ""
	if args != nil {
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			if p, ok := v.(string); ok && k == "prompt" {
				prompt = boundText(k, p, limit, &cut)
				continue
			}
			if v, err = boundValue(k, v, limit, &cut); err != nil {
				return "", nil, err
			}
			rest.Set(k, v)
		}
	}
	raw, err := delegation.ToJSON(rest)
	if err != nil {
		return "", nil, fmt.Errorf("encoding the call's arguments: %w", err)
	}
	switch {
	case prompt == "":
		return string(raw), cut, nil
	case rest.Len() == 0:
		return prompt, cut, nil
	}
	return prompt + "\n\nArguments (JSON):\n" + string(raw), cut, nil
}

// boundText cuts s to limit bytes, with a marker naming the argument.
func boundText(name, s string, limit int, cut *[]string) string {
	part, was := truncateJSON(s, limit)
	if !was {
		return s
	}
	*cut = append(*cut, fmt.Sprintf("%s (%d bytes)", name, len(s)))
	return part + cutMarker(name, len(s), len(part))
}

// boundValue bounds one argument: a string as text, anything else by the
// size of its JSON.
func boundValue(name string, v delegation.Value, limit int, cut *[]string) (delegation.Value, error) {
	if s, ok := v.(string); ok {
		return boundText(name, s, limit, cut), nil
	}
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the call's argument %s: %w", name, err)
	}
	if len(raw) <= limit {
		return v, nil
	}
	return boundText(name, string(raw), limit, cut), nil
}

func cutMarker(name string, size, shown int) string {
	return fmt.Sprintf("\n[... cut: the argument %q has %d bytes; only the first %d are shown]", name, size, shown)
}

// fenceBody is the body of a reply that is one fenced code block of any
// language (```python ... ```): the fence is markup around the answer,
// not part of it.
func fenceBody(s string) (string, bool) {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 7 || strings.Count(s, "```") != 2 {
		return "", false
	}
	body := s[3 : len(s)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return "", false
	}
	return strings.TrimSpace(body[nl+1:]), true
}

// maxLeadIn bounds the prose around a ```json fence for its body to be
// taken as the reply.
const maxLeadIn = 200

// leadInFence finds the body of the single ```json fence in s when the
// text around it is short.
//
// The fence is found in s itself, ignoring case byte-wise: an index into
// strings.ToLower(s) is no index into s, since lower-casing changes some
// characters' lengths (Ⱥ has 2 bytes, ⱥ 3) and invalid bytes become a
// 3-byte U+FFFD.
func leadInFence(s string) (string, bool) {
	const open = "```json\n"
	i := -1
	for k := 0; k+len(open) <= len(s); k++ {
		if s[k] == '`' && strings.EqualFold(s[k:k+len(open)], open) {
			i = k
			break
		}
	}
	if i < 0 || strings.Count(s, "```") != 2 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, "```")
	if j < 0 || i+len(strings.TrimSpace(rest[j+3:])) > maxLeadIn {
		return "", false
	}
	return strings.TrimSpace(rest[:j]), true
}

// stripFence returns the body of a reply that is one fenced code block,
// else s.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := strings.TrimSuffix(s[3:], "```")
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return s
	}
	info := strings.TrimSpace(body[:nl])
	if info != "" && info != "json" && info != "JSON" {
		return s
	}
	return strings.TrimSpace(body[nl+1:])
}

// stopped words the error of a request the call's own context ended: a
// call's timeout reads "context deadline exceeded" otherwise. The error
// still wraps the context's.
func stopped(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the model had not answered when the call's time ran out: %w", err)
	case ctx.Err() != nil:
		return fmt.Errorf("the call was stopped while the model was answering: %w", err)
	}
	return err
}
