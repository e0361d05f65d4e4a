package claim

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// Any claim text on any value is decided or left to the model, never a
// panic or a hang (a regexp, a Delegation condition, a deep value).
func FuzzDecide(f *testing.F) {
	for _, s := range []string{"contains `x`", "has at least 2 items", "is_integer_between(0, 100)", "matches /a(b/",
		"every item is null", "> 3 and score < 5", "certifies the proposal", "equals {\"a\": [", "is between 2 and 1"} {
		f.Add(s, `["x", 3, {"a": null}]`)
	}
	f.Fuzz(func(t *testing.T, claim, js string) {
		v, err := delegation.FromJSON([]byte(js))
		if err != nil {
			v = js
		}
		q := Question{Path: "score", Claim: claim, Value: v, Scope: map[string]delegation.Value{"score": v}}
		r, ok := Decide(context.Background(), q)
		// A claim of a value of the wrong kind holds neither way.
		if ok && r.Mismatch != "" && r.Holds {
			t.Fatalf("%q of %s holds despite the mismatch %q", claim, js, r.Mismatch)
		}
		if rest, neg := strings.CutPrefix(claim, "is not "); neg && ok && r.Mismatch != "" {
			if p, pok := Decide(context.Background(), Question{Path: "score", Claim: "is " + rest, Value: v}); pok && p.Holds {
				t.Fatalf("%q of %s holds while %q is a mismatch", "is "+rest, js, claim)
			}
		}
	})
}
