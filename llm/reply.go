package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/proselang/prose/delegation"
)

// How a model's reply becomes a value (decided). A reasoning model's
// leading <think> block is dropped first; then the reply is read as
//
//   - one JSON value when it is one, bare or as the body of a reply that
//     is one ``` or ```json fenced block;
//   - one JSON object with short prose around it ("Sure! {...} Hope this
//     helps!"), or the value of the one ```json fence after a short lead-in
//     ("Here is the result:"): "short" is at most maxLeadIn bytes on each
//     side, and the prose holds no second JSON object;
//   - otherwise the trimmed text: prose with no JSON in it, a long text
//     that quotes JSON, the body of one fenced block of another language.
//
// A reply that attempts JSON and is not one value is refused with a
// *ReplyError naming its problem, since any reading of it would be a
// guess: JSON cut off before its end, two JSON values (bare, two ```json
// fences, two objects in short prose), a reply that starts as an object
// but is no valid JSON, a ```json fence whose body is no JSON, an object
// followed by more than a short remark. A reply starting with `[` that
// is no JSON stays text ("[1] Smith et al."), as does prose with braces
// that hold no JSON ("use {name} here").

// ReplyError is a model's reply that attempts JSON and cannot be read as
// one value: Problem says why.
type ReplyError struct {
	Problem string
}

func (e *ReplyError) Error() string { return "the model's reply " + e.Problem }

// ParseReply reads a model's reply as a value, as the comment above
// describes; a reply that is no one value is a *ReplyError.
func ParseReply(content string) (delegation.Value, error) {
	answer, _ := splitThinking(content)
	text := strings.TrimSpace(answer)
	inner := stripFence(text)
	if v, err := delegation.FromJSON([]byte(inner)); err == nil {
		return v, nil
	}
	if strings.HasPrefix(inner, "{") || strings.HasPrefix(inner, "[") {
		v, err := leadingJSON(inner)
		if v != nil || err != nil {
			return v, err
		}
	}
	if n := countJSONFences(text); n > 1 {
		return nil, &ReplyError{fmt.Sprintf("holds %d ```json blocks: the answer is one JSON value", n)}
	}
	if body, ok := leadInFence(text); ok {
		v, err := delegation.FromJSON([]byte(body))
		if err != nil {
			return nil, &ReplyError{"has a ```json block that is no single JSON value: " + jsonProblem(body)}
		}
		return v, nil
	}
	if v, err := chattyObject(text); v != nil || err != nil {
		return v, err
	}
	if body, ok := fenceBody(text); ok {
		return body, nil
	}
	return text, nil
}

// leadingJSON reads s, a reply that starts with `{` or `[` and is not one
// JSON value: an object followed by a short remark is the object; a
// reply cut off, holding a second value, or starting with `{` and not
// valid JSON is an error. (nil, nil) means s is text.
func leadingJSON(s string) (delegation.Value, error) {
	end, err := firstValue(s)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &ReplyError{fmt.Sprintf("is JSON cut off before its end (%d bytes, ending %q)", len(s), tail(s))}
	case err != nil && s[0] == '{':
		return nil, &ReplyError{"starts as a JSON object but is no valid JSON: " + err.Error()}
	case err != nil:
		return nil, nil
	}
	rest := strings.TrimSpace(s[end:])
	if secondValue(rest, s[0] == '{') {
		return nil, &ReplyError{fmt.Sprintf("holds more than one JSON value (the second at byte %d): the answer is one JSON value", len(s)-len(rest))}
	}
	if s[0] != '{' && rest != "" {
		return nil, nil
	}
	v, err := delegation.FromJSON([]byte(s[:end]))
	switch {
	case err != nil:
		return nil, &ReplyError{"is JSON that cannot be read: " + err.Error()}
	case len(rest) > maxLeadIn:
		return nil, &ReplyError{fmt.Sprintf("is a JSON object followed by %d bytes of text: answer with the JSON alone", len(rest))}
	case hasObject(rest):
		return nil, &ReplyError{"holds more than one JSON object: the answer is one JSON value"}
	}
	return v, nil
}

// secondValue reports whether rest, the text after a first JSON value,
// starts a second one: an object or a list, or, after a list (which
// prose may start: "[1] Smith"), only a rest that is wholly JSON.
func secondValue(rest string, afterObject bool) bool {
	if rest == "" || rest[0] != '{' && rest[0] != '[' {
		return false
	}
	if !afterObject {
		_, err := delegation.FromJSON([]byte(rest))
		return err == nil
	}
	_, err := firstValue(rest)
	return err == nil
}

// firstValue decodes the JSON value s starts with and returns the offset
// after it.
func firstValue(s string) (int, error) {
	if s == "" {
		return 0, io.EOF
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	end := int(dec.InputOffset())
	if end <= 0 || end > len(s) {
		return 0, io.ErrUnexpectedEOF
	}
	return end, nil
}

// hasObject reports whether s holds a JSON object (text at a `{` that
// decodes as one).
func hasObject(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '{' {
			if _, err := firstValue(s[i:]); err == nil {
				return true
			}
		}
	}
	return false
}

// chattyObject finds the one JSON object in s that short chat surrounds.
// Offsets are taken from s itself, never from a transformed copy. An
// object cut off (`Sure! {"a": 1,`) or followed by a second one in short
// chat is an error; (nil, nil) means s is text.
func chattyObject(s string) (delegation.Value, error) {
	start := strings.IndexByte(s, '{')
	if start < 0 || start > maxLeadIn {
		return nil, nil
	}
	end, err := firstValue(s[start:])
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && strings.HasPrefix(strings.TrimLeft(s[start+1:], " \t\r\n"), `"`) {
			return nil, &ReplyError{fmt.Sprintf("holds a JSON object cut off before its end (ending %q)", tail(s))}
		}
		return nil, nil
	}
	end += start
	after := s[end:]
	if len(after) <= maxLeadIn+maxLeadIn && hasObject(after) {
		return nil, &ReplyError{"holds more than one JSON object: the answer is one JSON value"}
	}
	if len(strings.TrimSpace(after)) > maxLeadIn || strings.ContainsAny(after, "{}") {
		return nil, nil
	}
	v, err := delegation.FromJSON([]byte(s[start:end]))
	if err != nil {
		return nil, &ReplyError{"holds a JSON object that cannot be read: " + err.Error()}
	}
	return v, nil
}

// countJSONFences counts the ```json fences of s (any case).
func countJSONFences(s string) int {
	const open = "```json"
	n := 0
	for k := 0; k+len(open) <= len(s); k++ {
		if s[k] == '`' && strings.EqualFold(s[k:k+len(open)], open) {
			n++
			k += len(open) - 1
		}
	}
	return n
}

// jsonProblem says why body is no single JSON value.
func jsonProblem(body string) string {
	end, err := firstValue(body)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("it is cut off before its end (ending %q)", tail(body))
	case err != nil:
		return err.Error()
	case strings.TrimSpace(body[end:]) != "":
		return "it holds more than one value"
	}
	if _, err := delegation.FromJSON([]byte(body)); err != nil {
		return err.Error()
	}
	return "it is empty"
}

// tail is the last few characters of s, for a message.
func tail(s string) string {
	const n = 24
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return "..." + s[i:]
}
