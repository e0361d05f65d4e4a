package llm

import (
	"errors"
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
