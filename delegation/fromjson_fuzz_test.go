package delegation

import (
	"strings"
	"testing"
)

// A key twice in one object is an error naming it, at any depth: which of
// the two values is meant cannot be known.
func TestFromJSONKeyTwice(t *testing.T) {
	for _, src := range []string{`{"a":1,"a":2}`, `[{"x":{"v":true,"v":true}}]`, `{"a":1,"b":{},"a":1}`} {
		if _, err := FromJSON([]byte(src)); err == nil || !strings.Contains(err.Error(), "appears twice in one object") {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, err := FromJSON([]byte(`{"a":{"a":1},"b":[{"a":2},{"a":3}]}`)); err != nil {
		t.Errorf("the same key in different objects: %v", err)
	}
}

// FromJSON reads any input without panicking, and what it reads writes
// out as JSON that reads back the same.
func FuzzFromJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[1,"x",{"k":null}]`, `1e400`, `{"a":[{"b":{}}]}`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := FromJSON(raw)
		if err != nil {
			return
		}
		out, err := ToJSON(v)
		if err != nil {
			t.Fatalf("ToJSON of what FromJSON read from %q: %v", raw, err)
		}
		w, err := FromJSON(out)
		if err != nil {
			t.Fatalf("FromJSON of %s (written from %q): %v", out, raw, err)
		}
		if !Equal(v, w) {
			t.Fatalf("%q read back as %s differs", raw, out)
		}
	})
}
