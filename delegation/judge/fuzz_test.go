package judge

import (
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// FuzzDecide judges any parsed condition against any JSON subject without
// panicking, and a decided verdict always names its rule and reason.
func FuzzDecide(f *testing.F) {
	for _, s := range [][2]string{
		{"decision does not explicitly proceed", `{"reason": "x"}`},
		{"verdict is not certified", `"Certified."`},
		{"evaluation says the result is acceptable", `{"verdict": "accept"}`},
		{"check fails to pass the test, or not", `[{"ok": true}]`},
		{"'' doesn't ``", `{"decision": {"decision": {"verdict": true}}}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, subject string) {
		prog, errs := syntax.ParseString("f", "if "+text+":\n    return 1\n")
		if errs.HasErrors() || prog == nil {
			return
		}
		v, err := delegation.FromJSON([]byte(subject))
		if err != nil {
			return
		}
		syntax.Walk(prog, func(n syntax.Node) bool {
			c, ok := n.(*syntax.NaturalCond)
			if !ok {
				return true
			}
			vals := delegation.NewObject()
			for _, w := range c.Words {
				vals.Set(w.Path, v)
			}
			if c.Says != nil {
				vals.Set(c.Says.Criterion, v)
				vals.Set(c.Says.Subject, v)
			}
			if vd, ok := Decide(&delegation.Judgment{Cond: c, Values: vals}); ok && (vd.Rule == "" || vd.Reasoning == "") {
				t.Fatalf("%q with %s: verdict %+v has no rule or reason", text, subject, vd)
			}
			_ = NeedsModel(c, nil)
			return false
		})
	})
}
