package check

import (
	"fmt"
	"testing"

	"github.com/proselang/prose/delegation/syntax"
)

// TestEnsuresFields pins which ensures texts name fields: an object in
// braces, or code spans followed by a known type; prose names none.
func TestEnsuresFields(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"an object `{approved: boolean, notes: string}`", "[approved:boolean notes:string]"},
		{"returns `{accepted: boolean, notes: string}`", "[accepted:boolean notes:string]"},
		{"{score, suggestions}", "[score: suggestions:]"},
		// braces the run does not read (quoted names): names, no types
		{"{ \"score\": number; \"items\": string[] }", "[score: items:]"},
		{"{'decision': 'continue'}", "[decision:]"},
		{"`{a: number}` or `{error: string}`", "[a:]"},
		{"{verdict: \"accept\" | \"reject\", reasoning}", "[verdict:\"accept\" | \"reject\" reasoning:]"},
		{"returns `approved` (boolean) and `notes` (string)", "[approved:boolean notes:string]"},
		{"returns `approved` (yes or no)", "[]"},
		{"an object whose `data` field holds the payload", "[]"},
		{"the drafted text", "[]"},
		{"a map like {the name: what it does}", "[]"},
		{"{", "[]"},
		{"`unterminated (boolean)", "[]"},
		// spans are read as the run reads them (shape.Fields)
		{"returns `score` (number) for the `draft`", "[score:number]"},
		{"returns `score` (number) and `score` (number)", "[]"},
		{"returns `reason` (string | null) and `tags` (string[])", "[reason:string | null tags:string[]]"},
		{"returns `items` (list) and `score` (numeric)", "[]"},
	} {
		var got []string
		for _, f := range ensuresFields(tc.text) {
			got = append(got, f.Name+":"+f.Type)
		}
		if s := fmt.Sprint(got); s != tc.want {
			t.Errorf("%q: got %s, want %s", tc.text, s, tc.want)
		}
	}
}

func TestJoin(t *testing.T) {
	obj := func(fields ...Name) *valueShape { return &valueShape{kind: kObject, closed: true, fields: fields} }
	out := &valueShape{kind: kInteger, output: "out"}
	for _, tc := range []struct {
		name string
		a, b *valueShape
		want *valueShape
	}{
		{"same output", out, out, out},
		{"null joins anything", shapeNull, out, out},
		{"unknown wins", out, nil, nil},
		{"kinds differ", shapeTextV, shapeInteger, nil},
		{"output and plain integer", out, shapeInteger, nil},
		{"objects with other keys", obj(Name{Name: "a"}), obj(Name{Name: "b"}), nil},
	} {
		if got := join(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// An object compared with a scalar proposes the member meant: the field
// whose declared words hold the literal, else the one field of the
// scalar's kind.
func TestMemberMeant(t *testing.T) {
	review := &valueShape{kind: kObject, closed: true, fields: []Name{{Name: "verdict", Type: `"accept" | "reject"`}, {Name: "notes", Type: "string"}, {Name: "score", Type: "integer"}}}
	id := &syntax.Ident{Name: "review"}
	for _, tc := range []struct {
		lit  syntax.Expr
		kind *valueShape
		want string
	}{
		{&syntax.StringLit{Value: "accept"}, shapeTextV, ": did you mean review.verdict?"},
		{&syntax.StringLit{Value: "fine"}, shapeTextV, ""}, // notes or verdict: not clear
		{&syntax.NumberLit{IsInt: true, Int: 3}, shapeInteger, ": did you mean review.score?"},
	} {
		if got := memberMeant(review, id, tc.kind, tc.lit); got != tc.want {
			t.Errorf("%#v: got %q, want %q", tc.lit, got, tc.want)
		}
		if got := memberMeant(tc.kind, tc.lit, review, id); got != tc.want {
			t.Errorf("%#v (object on the right): got %q, want %q", tc.lit, got, tc.want)
		}
	}
}
