package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzServerMessage: an error body of any shape never panics, and the
// message read from it is bounded and, for valid UTF-8 input, valid.
func FuzzServerMessage(f *testing.F) {
	for _, pe := range providerErrors {
		f.Add([]byte(pe.body))
	}
	f.Add([]byte(`{"choices":[{"finish_reason":"error","error":{"message":["a","b"]}}]}`))
	f.Add([]byte(`{"detail":[{"msg":"field required"},{"msg":"bad"}]}`))
	f.Add([]byte(`{"error":null,"message":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, _ := serverMessage(body)
		if len(msg) > 400 {
			t.Fatalf("message of %d bytes from %q", len(msg), body)
		}
		if utf8.Valid(body) && !utf8.ValidString(msg) {
			t.Fatalf("invalid UTF-8 message %q from %q", msg, body)
		}
		failedChoice(body)
		embeddedError(body)
	})
}

// A long message in a script of multi-byte characters is cut between
// characters.
func TestServerMessageCutsBetweenCharacters(t *testing.T) {
	body := []byte(`{"error":"x` + strings.Repeat("é", 400) + `"}`) // byte 300 inside an é
	msg, _ := serverMessage(body)
	if !utf8.ValidString(msg) || len(msg) > 310 {
		t.Errorf("message %q (%d bytes)", msg, len(msg))
	}
}
