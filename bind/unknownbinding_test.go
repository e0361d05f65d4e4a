package bind

import (
	"strings"
	"testing"
)

// A binding of no known kind names the kind meant when its prefix is a
// slip for one, and nothing when it is not near any.
func TestUnknownBindingNamesTheKindMeant(t *testing.T) {
	for text, want := range map[string]string{
		"execc:echo 1": "did you mean exec:echo 1?",
		"exec echo 1":  "did you mean exec:echo 1?",
		"lm":           "did you mean llm?",
		"lmm:gpt-4o":   "did you mean llm:gpt-4o?",
		"hots":         "did you mean host?",
		"review":       "",
	} {
		_, _, err := Classify(text)
		if err == nil {
			t.Errorf("%q: classified", text)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "cannot tell what") || want != "" && !strings.HasSuffix(msg, want) || want == "" && strings.Contains(msg, "did you mean") {
			t.Errorf("%q: %s; want it to end %q", text, msg, want)
		}
	}
}
