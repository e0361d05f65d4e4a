package shape_test

import (
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/shape"
)

// Fields reads only what is clearly declared: every entry a name and a
// type the project knows; anything else declares nothing.
func TestFields(t *testing.T) {
	for text, want := range map[string]string{
		"a verdict `{accepted: boolean, notes: string}`":           "{accepted: boolean, notes: string}",
		"returns `{verdict: \"accept\" | \"reject\", n: integer}`": `{verdict: "accept" | "reject", n: integer}`,
		"{items: string[], extra: object | null}":                  "{items: string[], extra: object | null}",
		"an object `{score, suggestions}` with score in 0..1":      "",
		"{'decision': 'continue'}, adjust, or abort":               "",
		"{verdict: \"accept\" | \"reject\", reasoning, issues}":    `{verdict: "accept" | "reject", reasoning, issues}`,
		"{reasoning, score: number}":                               "{reasoning, score: number}",
		"{reasoning, score: 0 to 10}":                              "",
		"{count: intger}":                                          "",
		"{a: string} or {b: string}":                               "",
		"the reviewer's notes, as prose":                           "",
		"{accepted: boolean, accepted: boolean}":                   "",
		// code spans, each a field and its type, as lint reads them
		"returns `score` (number) and `verdict` (string)":      "{score: number, verdict: string}",
		"`items` (string[]) in order":                          "{items: string[]}",
		"returns `score` (number) for the `draft`":             "{score: number}",
		"the `draft`, `notes` (string[]) and `score` (number)": "{notes: string[], score: number}",
		"returns `score` (a number from 0 to 1)":               "",
		"returns `score` (number) and `score` (number)":        "",
		"returns `score` and `verdict`":                        "",
		"a revised `draft (string)":                            "",
		"returns `score` (number) for a `draft":                "{score: number}",
	} {
		got := ""
		if f := shape.Fields(text); f != nil {
			got = shape.Describe(f)
		}
		if got != want {
			t.Errorf("Fields(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	fields := shape.Fields("{accepted: boolean, notes: string, tags: string[], mode: \"a\" | \"b\"}")
	checkEach(t, fields, map[string]string{
		`{"accepted": true, "notes": "", "tags": ["x"], "mode": "a", "more": 1}`: "",
		`"fine"`: "got text, not an object",
		`[1]`:    "got list, not an object",
		`{"accepted": true, "notes": "", "tags": ["x"]}`:            `has no "mode"`,
		`{"accepted": 1, "notes": "", "tags": [], "mode": "a"}`:     `its "accepted" is 1, not boolean`,
		`{"accepted": true, "notes": "", "tags": [2], "mode": "a"}`: `its "tags" is [2], not string[]`,
		`{"accepted": true, "notes": "", "tags": [], "mode": "c"}`:  `its "mode" is "c"`,
		`{"accepted": null, "notes": "", "tags": [], "mode": "a"}`:  `its "accepted" is null`,
	})
	if err := shape.Check(nil, "anything"); err != nil {
		t.Errorf("no fields declared: %v", err)
	}
}

// FuzzFields: any text is read without a panic, and the fields read back
// from their own description are the same.
func FuzzFields(f *testing.F) {
	for _, s := range []string{"{accepted: boolean, notes: string}", "{a: \"x\" | 'y'}", "{}", "{a: string[][]}", "{ : }", "{a-b: any}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fields := shape.Fields(text)
		if fields == nil {
			return
		}
		again := shape.Fields(shape.Describe(fields))
		if shape.Describe(again) != shape.Describe(fields) {
			t.Fatalf("%q: %q read back as %q", text, shape.Describe(fields), shape.Describe(again))
		}
		_ = shape.Check(fields, "x")
	})
}

// A field whose type admits null may be left out; one that does not may not.
func TestOptionalFields(t *testing.T) {
	fields := shape.Fields("{proceed: boolean, reason: string | null}")
	ok, _ := delegation.FromJSON([]byte(`{"proceed": true}`))
	if err := shape.Check(fields, ok); err != nil {
		t.Errorf("reason left out: %v", err)
	}
	bad, _ := delegation.FromJSON([]byte(`{"reason": "x"}`))
	if err := shape.Check(fields, bad); err == nil || !strings.Contains(err.Error(), `no "proceed"`) {
		t.Errorf("proceed left out: %v", err)
	}
}

// TestArticle: a declared type named with its article; a set of words
// is "one of" them; another union or no type at all is "a value of that
// type" (an empty type used to index its first byte).
func TestArticle(t *testing.T) {
	for typ, want := range map[string]string{
		"integer": "an integer", "string[]": "a string[]", "Object": "an Object",
		`"a" | "b"`: `one of "a", "b"`, `"a" | null`: "a value of that type", "": "a value of that type",
	} {
		if got := shape.Article(typ); got != want {
			t.Errorf("Article(%q) = %q, want %q", typ, got, want)
		}
	}
}

// A field braces name without a type may hold anything or be absent;
// the typed ones beside it are checked, in an answer that is an object
// (prose is the program's to judge).
func TestCheckUntypedField(t *testing.T) {
	checkEach(t, shape.Fields(`{verdict: "accept" | "reject", reasoning}`), map[string]string{
		`{"verdict": "accept"}`:                    "",
		`{"verdict": "reject", "reasoning": [1]}`:  "",
		`{"verdict": "approve", "reasoning": "x"}`: `its "verdict" is "approve"`,
		`{"reasoning": "x"}`:                       `has no "verdict"`,
		`"accept: it reads well"`:                  "",
	})
}

// checkEach checks each JSON answer of cases (answer: the text its error
// holds, "" for none) against fields.
func checkEach(t *testing.T, fields []shape.Field, cases map[string]string) {
	t.Helper()
	for js, want := range cases {
		v, err := delegation.FromJSON([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		err = shape.Check(fields, v)
		switch {
		case want == "" && err != nil:
			t.Errorf("Check(%s): %v", js, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Check(%s) = %v, want %q", js, err, want)
		}
	}
}
