package canon

import (
	"encoding/json"
	"strings"
	"testing"
)

// The number and ordering examples of RFC 8785 (3.2.2.3, 3.2.3, B).
func TestRFC8785(t *testing.T) {
	for in, want := range map[string]string{
		`1e21`:                   `1e+21`,
		`1e-7`:                   `1e-7`,
		`0.000001`:               `0.000001`,
		`123456789012345680000`:  `123456789012345680000`,
		`4.50`:                   `4.5`,
		`2e-3`:                   `0.002`,
		`333333333.33333329`:     `333333333.3333333`,
		`-0`:                     `0`,
		`-1.5e300`:               `-1.5e+300`,
		`5e-324`:                 `5e-324`,
		`1.7976931348623157e308`: `1.7976931348623157e+308`,
		`100`:                    `100`,
		`[56, {"d": true, "10": null, "1": [ ]}]`:                                     `[56,{"1":[],"10":null,"d":true}]`,
		`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`: "{\"\\r\":2,\"1\":4,\"\u0080\":6,\"\u00f6\":7,\"\u20ac\":1,\"\U0001F600\":5,\"\ufb33\":3}",
		`"\u2028 <&> \u001f \"q\" \\"`:                                                "\"\u2028 <&> \\u001f \\\"q\\\" \\\\\"",
	} {
		v, err := Decode([]byte(in))
		if err != nil {
			t.Fatal(in, err)
		}
		got, err := Marshal(v)
		if err != nil {
			t.Fatal(in, err)
		}
		if string(got) != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestFingerprintIgnoresImmaterialAndOrder(t *testing.T) {
	a, _ := Decode([]byte(`{"n": 1, "seen": "t1", "list": [{"id": 1, "seen": 2}]}`))
	b, _ := Decode([]byte(`{"list": [{"seen": 3, "id": 1.0}], "seen": "t2", "n": 1}`))
	c, _ := Decode([]byte(`{"list": [{"seen": 3, "id": 2}], "seen": "t2", "n": 1}`))
	fa, _ := Fingerprint(a, []string{"seen"})
	fb, _ := Fingerprint(b, []string{"seen"})
	fc, _ := Fingerprint(c, []string{"seen"})
	if fa != fb || fa == fc || !strings.HasPrefix(fa, "sha256:") {
		t.Errorf("fingerprints %s %s %s", fa, fb, fc)
	}
	if f1, _ := Fingerprint(a, nil); f1 == fa {
		t.Error("the immaterial field did not count when named nowhere")
	}
}

func TestIndentIsCanonicalOrder(t *testing.T) {
	v, _ := Normalize(map[string]any{"b": []int{1}, "a": map[string]any{}})
	got, _ := Indent(v)
	want := "{\n  \"a\": {},\n  \"b\": [\n    1\n  ]\n}\n"
	if string(got) != want {
		t.Errorf("got %q", got)
	}
	var back any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Error(err)
	}
}

func FuzzMarshalRoundTrip(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,"x"],"b":null}`))
	f.Add([]byte(`"\u0000\ud800"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil {
			return // a number outside float64
		}
		v2, err := Decode(out)
		if err != nil {
			t.Fatalf("canonical output does not parse: %q", out)
		}
		out2, err := Marshal(v2)
		if err != nil || string(out2) != string(out) {
			t.Fatalf("not idempotent: %q then %q", out, out2)
		}
	})
}

// Decode refuses JSON that is not UTF-8 rather than read U+FFFD for it.
func TestDecodeNotUTF8(t *testing.T) {
	if _, err := Decode([]byte("{\"n\": \"a\xffb\"}")); err == nil {
		t.Error("JSON with a byte that is no UTF-8 was decoded")
	}
}

// An integer the canonical form would write as another is refused by
// Marshal and Exact alike; one it keeps is written as it was.
func TestIntegersKeptOrRefused(t *testing.T) {
	for _, lit := range []string{"9007199254740993", "-9007199254740993", "12345678901234567890"} {
		v, err := Decode([]byte(lit))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Marshal(v); err == nil || !strings.Contains(err.Error(), "the integer "+lit) {
			t.Errorf("Marshal %s: %v", lit, err)
		}
		if err := Exact([]any{map[string]any{"x": v}}); err == nil {
			t.Errorf("Exact %s: nil", lit)
		}
	}
	for _, lit := range []string{"9007199254740992", "123456789012345680000", "1e300", "0.1"} {
		v, _ := Decode([]byte(lit))
		if _, err := Marshal(v); err != nil {
			t.Errorf("Marshal %s: %v", lit, err)
		}
		if err := Exact(v); err != nil {
			t.Errorf("Exact %s: %v", lit, err)
		}
	}
	if _, err := Marshal(int64(1<<53 + 1)); err == nil {
		t.Error("Marshal of the int64 2^53+1: nil")
	}
}

// An event that names a member twice is refused, at any depth; one
// whose nested objects reuse a name is not.
func TestDecodeEventDuplicates(t *testing.T) {
	for in, bad := range map[string]bool{
		`{"a": 1, "a": 2}`:                           true,
		`{"a": {"b": 1, "b": 1}}`:                    true,
		`[{"x": [1, {"y": 2, "y": 3}]}]`:             true,
		`{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}`: false,
		`{"a": [], "b": {}, "c": [[]], "d": "a"}`:    false,
		`[1, 2, "a", "a"]`:                           false,
	} {
		_, err := DecodeEvent([]byte(in))
		if (err != nil) != bad {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// An event that no canonical form holds as sent is refused where it
// arrives: a number beyond float64 (Marshal could not write it), a lone
// UTF-16 surrogate escape (encoding/json would put U+FFFD in its place,
// a value other than the one sent). A pair, and the escapes of other
// characters, are kept.
func TestDecodeEventUnkeepable(t *testing.T) {
	for in, bad := range map[string]bool{
		`{"n": 1e400}`:             true,
		`[-1E+309]`:                true,
		`{"n": 1e308}`:             false,
		`{"n": 1.5e-10}`:           false,
		`{"s": "\ud800"}`:          true,
		`{"s": "\udc00x"}`:         true,
		`{"s": "\ud800\u0041"}`:    true,
		`{"\ud800": 1}`:            true,
		`{"s": "\ud83d\ude00"}`:    false,
		`{"s": "\\ud800"}`:         false,
		`{"s": "\u00e9\n\"\\"}`:    false,
		`{"s": "\uD83D\uDE00 ok"}`: false,
	} {
		_, err := DecodeEvent([]byte(in))
		if (err != nil) != bad {
			t.Errorf("%s: %v (want refused: %v)", in, err, bad)
		}
	}
}
