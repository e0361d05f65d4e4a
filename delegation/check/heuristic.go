package check

import (
	"strings"
	"unicode"

	"github.com/proselang/prose/delegation/syntax"
)

// placeholders reports string literals among the values of a returned
// object that read as a description of a computed value ("number of
// completed attempts before winner") rather than the value itself. Only
// returned object fields are looked at: prompts and reasons given to calls
// or recorded in lists are ordinary text.
func (c *checker) placeholders(e syntax.Expr) {
	switch x := e.(type) {
	case *syntax.ObjectLit:
		for _, f := range x.Fields {
			if s, ok := f.Value.(*syntax.StringLit); ok && looksLikePlaceholder(s.Value) {
				c.diags.Warnf(c.f, s.ValuePos, CodePlaceholder,
					"%s: the string %q describes a value instead of computing it", f.Key, s.Value)
				continue
			}
			c.placeholders(f.Value)
		}
	case *syntax.ListLit:
		for _, el := range x.Elems {
			c.placeholders(el)
		}
	}
}

// looksLikePlaceholder reports whether s is a short lower-case phrase of
// several words opening like "number of ...", "the ...".
func looksLikePlaceholder(s string) bool {
	if len(s) < 8 || len(s) > 120 || strings.ContainsAny(s, "\n{}:?!.\"") {
		return false
	}
	if r := rune(s[0]); !unicode.IsLower(r) {
		return false
	}
	if strings.Count(s, " ") < 2 {
		return false
	}
	// Openings of a phrase that describes a quantity or computed value.
	leads := [...]string{
		"number of ", "count of ", "list of ", "total ", "amount of ",
		"sum of ", "length of ", "index of ", "name of ", "average ",
		"percentage of ",
	}
	for _, lead := range leads {
		if strings.HasPrefix(s, lead) {
			return true
		}
	}
	// "the winning candidate name", not "the run was aborted".
	if rest, ok := strings.CutPrefix(s, "the "); ok {
		word, _, _ := strings.Cut(rest, " ")
		switch word {
		case "number", "count", "list", "total", "amount", "sum", "length",
			"index", "name", "names", "id", "set", "winner", "winning",
			"final", "result", "results", "score", "average", "percentage":
			return true
		}
	}
	return false
}

// shape is the coarse kind of a value, as a fallback literal shows it or
// a slot's ensures text describes it.
type shape int

const (
	shapeUnknown shape = iota
	shapeString
	shapeNumber
	shapeBool
	shapeList
	shapeObject
)

func (s shape) String() string {
	return [...]string{"unknown", "a string", "a number", "a boolean", "a list", "an object"}[s]
}

// literalShape is the shape of a literal fallback value; null and
// non-literals are unknown (null is always an acceptable fallback).
func literalShape(e syntax.Expr) shape {
	switch e.(type) {
	case *syntax.StringLit:
		return shapeString
	case *syntax.NumberLit:
		return shapeNumber
	case *syntax.BoolLit:
		return shapeBool
	case *syntax.ListLit:
		return shapeList
	case *syntax.ObjectLit:
		return shapeObject
	}
	return shapeUnknown
}

// ensuresShape reads the shape a slot's ensures text promises, when
// exactly one kind of value is named.
func ensuresShape(text string) shape {
	t := " " + strings.ToLower(text) + " "
	found := shapeUnknown
	for _, k := range [...]struct {
		s     shape
		words []string
	}{
		{shapeList, []string{" list", " array", "[]", " items"}},
		{shapeObject, []string{" object", "{", " json", " structured", " record"}},
		{shapeNumber, []string{" number", " score", " count", " integer", " numeric"}},
		{shapeBool, []string{" boolean", " true/false", " yes/no"}},
		{shapeString, []string{" text", " string", " message", " summary"}},
	} {
		for _, w := range k.words {
			if strings.Contains(t, w) {
				if found != shapeUnknown && found != k.s {
					return shapeUnknown
				}
				found = k.s
				break
			}
		}
	}
	return found
}

// fallbackShape warns when an on_fail fallback literal contradicts the
// shape the slot's ensures promises.
func (c *checker) fallbackShape(use syntax.Expr, s *Slot) {
	got := literalShape(use)
	if got == shapeUnknown {
		return
	}
	want := ensuresShape(s.Ensures)
	if want == shapeUnknown || want == got {
		return
	}
	c.diags.Warnf(c.f, use.Pos(), CodeOnFailShape,
		"on_fail fallback is %s but slot %s ensures %s (%q)", got, quote(s.Name), want, s.Ensures)
}
