package view_test

import (
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/view"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := canon.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzDiff: two JSON values differ in no field exactly when their
// canonical forms are equal, and a value never differs from itself.
func FuzzDiff(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":[1,{"b":null}]}`, `{"a":[1,{"b":false}],"c":"x"}`},
		{`[]`, `{}`},
		{`{"a b":{"\u00e9":1e3}}`, `{"a b":{"\u00e9":1000}}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err := canon.Decode([]byte(x))
		if err != nil {
			return
		}
		b, err := canon.Decode([]byte(y))
		if err != nil {
			return
		}
		ca, err1 := canon.Marshal(a)
		cb, err2 := canon.Marshal(b)
		if err1 != nil || err2 != nil {
			return
		}
		if d := view.Diff(a, a); len(d) != 0 {
			t.Fatalf("%s differs from itself: %+v", x, d)
		}
		if d := view.Diff(a, b); (len(d) == 0) != (string(ca) == string(cb)) {
			t.Fatalf("Diff(%s, %s) = %+v, canonical forms %s and %s", x, y, d, ca, cb)
		}
	})
}
