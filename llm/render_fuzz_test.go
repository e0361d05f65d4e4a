package llm

import (
	"errors"
	"strings"
	"testing"
)

// FuzzCheckRender feeds arbitrary model replies to the render checks: they
// never panic, and a reply either gives exactly the outputs or fails with
// a declared or protocol error.
func FuzzCheckRender(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": "x"}`, `{"error": "bad", "message": "m"}`, `{"error": "other"}`,
		`{"a": 1}`, "plain text", "```json\n{\"a\": 1, \"b\": 2}\n```", `[1, 2]`, `null`, `{"error": null, "a": 1, "b": 2}`,
	} {
		f.Add(s)
	}
	info := RenderInfo{Name: "n", Pos: "f:1:1", Returns: []Field{{Name: "a"}, {Name: "b"}}, Errors: []Field{{Name: "bad"}}}
	f.Fuzz(func(t *testing.T, reply string) {
		parsed, err := ParseReply(reply)
		if err != nil {
			var r *ReplyError
			if !errors.As(err, &r) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		v, err := CheckRender(info, parsed)
		if err != nil {
			var d *DeclaredError
			var p *ProtocolError
			if !errors.As(err, &d) && !errors.As(err, &p) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		o, ok := v.(interface{ Keys() []string })
		if !ok || len(o.Keys()) != 2 {
			t.Fatalf("value %v is not exactly the outputs", v)
		}
	})
}

// A reply that is not an object is named by its kind as a program names
// it, never by Go's type.
func TestCheckRenderNamesTheKind(t *testing.T) {
	info := RenderInfo{Name: "score", Pos: "f:1:1", Returns: []Field{{Name: "grade"}}}
	for reply, want := range map[string]string{
		"85":   "f:1:1: render protocol error: score answered an integer, not a JSON object with grade",
		"8.5":  "answered a number, not",
		"true": "answered a bool, not",
	} {
		v, err := ParseReply(reply)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := CheckRender(info, v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", reply, err, want)
		}
	}
}
