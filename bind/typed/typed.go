// Package typed types a value given as text (a --config or --input
// flag, a test's fixture) by the type its spec declares, and checks a
// value against such a type, converting only what is unambiguous: one
// reader shared by the binder of a run and by lint, which reports at a
// fixture what the run would refuse.
package typed

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/spec"
)

// Declared types of config keys and inputs, normalized. The names are
// the spec package's one table (spec.TypeNames, which the loader checks
// every declaration against, so that a spec says one thing one way:
// `int` is refused there, suggesting integer); a union (`string | null`),
// null and any type nothing. typeArray is a list (`T[]`).
const (
	typeAny     = "any"
	typeInteger = "integer"
	typeNumber  = "number"
	typeBoolean = "boolean"
	typeString  = "string"
	typeObject  = "object"
	typeArray   = "array"
	// typeDuration takes "500ms", "30s", "2m" or a number of seconds and
	// gives a duration value, the kind `timeout` and `backoff` expect.
	typeDuration = "duration"
	// typeWords is a set of words (`"low" | "high"`, spec.WordsType):
	// text that is one of them.
	typeWords = "words"
)

// declType is a normalized declared type; Elem is set for arrays (`T[]`).
type declType struct {
	Kind  string
	Elem  *declType
	Words []string // typeWords: the words, as declared
}

func (t declType) String() string {
	if t.Kind == typeWords {
		return "one of " + strings.Join(t.Words, ", ")
	}
	if t.Kind == typeArray && t.Elem != nil && t.Elem.Kind != typeAny {
		return t.Elem.String() + "[]"
	}
	return t.Kind
}

// parseType normalizes a declared type.
func parseType(s string) declType {
	if w := spec.WordsType(s); w != "" {
		t := declType{Kind: typeWords}
		for q := range strings.SplitSeq(w, " | ") {
			t.Words = append(t.Words, q)
		}
		return t
	}
	s = strings.ToLower(strings.TrimSpace(s))
	if elem, ok := strings.CutSuffix(s, "[]"); ok {
		e := parseType(elem)
		return declType{Kind: typeArray, Elem: &e}
	}
	switch name, _ := spec.BaseType(s); name {
	case typeInteger, typeNumber, typeBoolean, typeString, typeObject, typeDuration:
		return declType{Kind: name}
	}
	return declType{Kind: typeAny}
}

// ParseText types a command-line text by the declared type typ (see
// parseText).
func ParseText(typ, text string) (delegation.Value, error) {
	return parseText(parseType(typ), text)
}

// ParseValues types the values given for one name with repeated --input
// flags by its declared type typ ("" when untyped): one value as ParseText
// does; several are the elements of a list-typed name, and an error for
// any other type.
func ParseValues(typ string, values []string) (delegation.Value, error) {
	return parseValues(parseType(typ), values)
}

// Coerce checks v against the declared type typ, converting what is
// unambiguous (see coerce).
func Coerce(typ string, v delegation.Value) (delegation.Value, error) {
	return coerce(parseType(typ), v)
}

// parseText types a command-line value by its declaration: `3` is an
// integer where the spec says integer, lists and objects are JSON, a
// string is taken verbatim, and an untyped value is JSON when it parses,
// else text.
func parseText(t declType, text string) (delegation.Value, error) {
	switch t.Kind {
	case typeString:
		return text, nil
	case typeWords:
		if w := strings.TrimSpace(text); slices.Contains(t.Words, strconv.Quote(w)) {
			return w, nil
		}
		if v, err := delegation.FromJSON([]byte(text)); err == nil {
			return coerce(t, v)
		}
		return nil, fmt.Errorf("want %s, got %q", t, text)
	case typeInteger, typeNumber:
		return parseNumber(t, text)
	case typeDuration:
		return coerce(t, strings.TrimSpace(text))
	case typeBoolean:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true", "yes", "1":
			return true, nil
		case "false", "no", "0":
			return false, nil
		}
		return nil, fmt.Errorf("want a boolean (true or false), got %q", text)
	case typeObject, typeArray:
		v, err := delegation.FromJSON([]byte(text))
		if err != nil {
			if t.Kind == typeArray {
				return nil, fmt.Errorf("want a JSON array such as [\"a\", \"b\"] (or one element per repeated flag), got %q: %v", shorten(text), err)
			}
			return nil, fmt.Errorf("want a JSON %s, got %q: %v", t.Kind, shorten(text), err)
		}
		return coerce(t, v)
	}
	if v, err := delegation.FromJSON([]byte(text)); err == nil {
		return v, nil
	}
	return text, nil
}

// parseValues types the values given for one name: one value is typed by
// parseText; several are the elements of a list-typed name, each typed by
// the element type. A single value of a list-typed name that is not a JSON
// array (it does not start with '[') is a list of that one element, as if
// the flag were repeated once.
func parseValues(t declType, values []string) (delegation.Value, error) {
	if len(values) == 1 && (t.Kind != typeArray || strings.HasPrefix(strings.TrimSpace(values[0]), "[")) {
		return parseText(t, values[0])
	}
	if t.Kind != typeArray {
		return nil, fmt.Errorf("given %d times, but it is %s, not a list: give it once", len(values), article(t))
	}
	elem := declType{Kind: typeAny}
	if t.Elem != nil {
		elem = *t.Elem
	}
	// Decided: a list given once as text with a comma (--input tags=a,b)
	// is refused, not the list of that one text: the elements meant are
	// not known (a,b as two tags, as run[] reads it, or one tag holding
	// a comma), and one element where two were meant is read on with
	// exit 0.
	if len(values) == 1 && strings.Contains(values[0], ",") && (elem.Kind == typeString || elem.Kind == typeAny) {
		return nil, fmt.Errorf("%q holds a comma, but a list is given one element per repeated flag, or as a JSON array: write %s, or [%q] for one element",
			shorten(values[0]), commaElements(values[0]), values[0])
	}
	l := delegation.NewList()
	for i, text := range values {
		v, err := parseText(elem, text)
		if err != nil {
			return nil, fmt.Errorf("element %d: %v", i, err)
		}
		l.Append(v)
	}
	return l, nil
}

// commaElements is text split at its commas as a JSON array, the way to
// write the elements a comma may have meant.
func commaElements(text string) string {
	var parts []string
	for p := range strings.SplitSeq(text, ",") {
		parts = append(parts, strconv.Quote(strings.TrimSpace(p)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func parseNumber(t declType, text string) (delegation.Value, error) {
	s := strings.TrimSpace(text)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("want %s, got %q", article(t), text)
	}
	// an integer beyond int64 is refused as a value's is
	// (delegation.FromJSON), never rounded into a float
	if !strings.ContainsAny(s, ".eEnN") {
		if _, err := delegation.FromJSON([]byte(strings.TrimPrefix(s, "+"))); err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "invalid JSON: "))
		}
	}
	return coerce(t, f)
}

// coerce checks a value against a declared type, converting what is
// unambiguous (an integral number to an integer). null fits every type.
func coerce(t declType, v delegation.Value) (delegation.Value, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case typeAny:
		return v, nil
	case typeInteger:
		switch n := v.(type) {
		case int64:
			return n, nil
		case float64:
			if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
				return int64(n), nil
			}
		}
	case typeNumber:
		switch v.(type) {
		case int64, float64:
			return v, nil
		}
	case typeBoolean:
		if _, ok := v.(bool); ok {
			return v, nil
		}
	case typeString:
		if _, ok := v.(string); ok {
			return v, nil
		}
	case typeWords:
		if w, ok := v.(string); ok && slices.Contains(t.Words, strconv.Quote(w)) {
			return v, nil
		}
		return nil, fmt.Errorf("want %s, got %s", t, shortJSON(v))
	case typeObject:
		if _, ok := v.(*delegation.Object); ok {
			return v, nil
		}
	case typeDuration:
		if d, ok := delegation.ToDuration(v); ok {
			return d, nil
		}
		return nil, fmt.Errorf("want a duration such as 500ms, 30s or 2m (or a number of seconds), got %s", shortJSON(v))
	case typeArray:
		if l, ok := v.(*delegation.List); ok {
			return coerceElems(t, l)
		}
	}
	return nil, fmt.Errorf("want %s, got %s %s", article(t), delegation.TypeName(v), shortJSON(v))
}

func coerceElems(t declType, l *delegation.List) (delegation.Value, error) {
	if t.Elem == nil || t.Elem.Kind == typeAny {
		return l, nil
	}
	if l.Frozen() { // a call's argument: coerce a copy
		l = delegation.NewList(l.Elems()...)
	}
	for i, e := range l.Elems() {
		c, err := coerce(*t.Elem, e)
		if err != nil {
			return nil, fmt.Errorf("element %d: %v", i, err)
		}
		l.Set(i, c)
	}
	return l, nil
}

func article(t declType) string {
	s := t.String()
	if t.Kind == typeWords {
		return s
	}
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}

func shortJSON(v delegation.Value) string {
	b, err := delegation.ToJSON(v)
	if err != nil {
		return ""
	}
	return shorten(string(b))
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
