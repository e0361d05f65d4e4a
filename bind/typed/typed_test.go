package typed

import (
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// A list given once as text with a comma is refused with the JSON to
// write, for text and untyped elements; a comma inside a JSON array, a
// repeated flag and one element without a comma are taken as given.
func TestListGivenOnceWithAComma(t *testing.T) {
	for _, tc := range []struct {
		typ    string
		values []string
		want   string // the value as JSON, or "error: " and a fragment
	}{
		{"string[]", []string{"a,b"}, `error: "a,b" holds a comma, but a list is given one element per repeated flag, or as a JSON array: write ["a", "b"], or ["a,b"] for one element`},
		{"any[]", []string{"x, y"}, `error: write ["x", "y"]`},
		{"string[]", []string{`["a,b"]`}, `["a,b"]`},
		{"string[]", []string{"a,b", "c"}, `["a,b","c"]`},
		{"string[]", []string{"a"}, `["a"]`},
		{"integer[]", []string{"3,4"}, `error: element 0: want an integer`},
	} {
		v, err := ParseValues(tc.typ, tc.values)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			b, _ := delegation.ToJSON(v)
			got = string(b)
		}
		if frag, isErr := strings.CutPrefix(tc.want, "error: "); isErr && (err == nil || !strings.Contains(err.Error(), frag)) || !isErr && got != tc.want {
			t.Errorf("ParseValues(%s, %q) = %s, want %s", tc.typ, tc.values, got, tc.want)
		}
	}
}
