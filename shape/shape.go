// Package shape checks the values that enter a run at its boundaries (a
// service's or a model's answer to a slot, a node's result) against what
// the spec declares of them, so that a value of the wrong shape is an
// error where it arrives, not a null read later on the wrong branch.
//
// Fields reads the fields a slot's `ensures` declares, conservatively:
// a single `{name: type, ...}` whose entries are field names, each with
// a type the project knows (`{accepted: boolean, notes: string}`) or,
// when at least one has one, without a type (`{verdict: "accept" |
// "reject", reasoning}`: reasoning may hold anything or be absent, and
// an answer that is not an object is left to the program, which may
// judge prose); or code spans followed by such a type ("returns `score`
// (number) and `verdict` (string)", the form lint reads too: a span
// without a type after it, "for the `draft`", is a mention, not a
// field). Anything else (`{score, suggestions}`, `{'decision':
// 'continue'}`, `{score: 0 to 10}`, prose) declares nothing, and nothing
// is checked. Check matches an answer with the fields; Fits matches one
// value with a declared type.
package shape

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/spec"
)

// Field is one declared field: its name and its type as written
// (`boolean`, `string[]`, `"accept" | "reject"`; "" where braces name
// the field without a type: any value, or none).
type Field struct {
	Name string
	Type string
}

// Fields returns the fields text declares, or nil when it declares none
// clearly (see the package doc).
func Fields(text string) []Field {
	open := strings.IndexByte(text, '{')
	if open < 0 {
		return spanFields(text)
	}
	if strings.Count(text, "{") != 1 || strings.Count(text, "}") != 1 {
		return nil
	}
	end := strings.IndexByte(text, '}')
	if end < open {
		return nil
	}
	var out []Field
	seen := map[string]bool{}
	typed := false
	for entry := range strings.SplitSeq(text[open+1:end], ",") {
		name, typ, ok := strings.Cut(entry, ":")
		name, typ = strings.TrimSpace(name), strings.TrimSpace(typ)
		if !check.FieldName(name) || seen[name] || ok && !Known(typ) {
			return nil
		}
		seen[name] = true
		typed = typed || ok
		out = append(out, Field{Name: name, Type: typ})
	}
	if !typed {
		return nil
	}
	return out
}

// spanFields reads the fields of an ensures written as code spans each
// followed by its type, "returns `score` (number) and `verdict`
// (string)", as lint reads them (check.ensuresFields): a span without a
// known type after it ("for the `draft`") is a mention, not a field, and
// is passed over, and so is a backtick left open; a name given twice
// makes the text prose, and nothing is declared.
//
// Decided: a mention does not undo the fields beside it. Declaring
// nothing there, as this did, checked no answer of a slot whose fields
// lint read and checked the program against: `{"score": "high"}` went
// on into a program lint had checked as reading a number.
func spanFields(text string) []Field {
	var out []Field
	seen := map[string]bool{}
	for rest := text; ; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			break
		}
		name := rest[i+1 : i+1+j]
		rest = rest[i+2+j:]
		after := strings.TrimLeft(rest, " ")
		end := strings.IndexByte(after, ')')
		if !strings.HasPrefix(after, "(") || end < 0 || !check.FieldName(name) {
			continue
		}
		typ := strings.TrimSpace(after[1:end])
		if !Known(typ) {
			continue
		}
		if seen[name] {
			return nil
		}
		seen[name] = true
		out = append(out, Field{Name: name, Type: typ})
		rest = after[end+1:]
	}
	return out
}

// Known reports whether typ is a type this package can check: a known
// type name (spec.BaseType), T[] of one, or a union of them or of quoted
// strings.
func Known(typ string) bool {
	parts := strings.Split(typ, "|")
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if _, ok := literal(p); ok {
			continue
		}
		for strings.HasSuffix(p, "[]") {
			p = strings.TrimSuffix(p, "[]")
		}
		if _, ok := spec.BaseType(p); !ok {
			return false
		}
	}
	return len(parts) > 0
}

// literal is the string a quoted word stands for.
func literal(p string) (string, bool) {
	if len(p) >= 2 && (p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') {
		if p[0] == '\'' {
			return p[1 : len(p)-1], true
		}
		s, err := strconv.Unquote(p)
		return s, err == nil
	}
	return "", false
}

// Fits reports whether v is of the declared type typ. An unknown type
// name, "" and any fit everything (nothing is guessed); null fits only
// where the type admits it (null, any, or a union naming null).
func Fits(typ string, v delegation.Value) bool {
	typ = strings.TrimSpace(typ)
	if typ == "" || !Known(typ) {
		return true
	}
	for p := range strings.SplitSeq(typ, "|") {
		if fitsOne(strings.TrimSpace(p), v) {
			return true
		}
	}
	return false
}

func fitsOne(p string, v delegation.Value) bool {
	if s, ok := literal(p); ok {
		x, isText := v.(string)
		return isText && x == s
	}
	if elem, ok := strings.CutSuffix(p, "[]"); ok {
		l, isList := v.(*delegation.List)
		if !isList {
			return false
		}
		for _, e := range l.Elems() {
			if !fitsOne(elem, e) {
				return false
			}
		}
		return true
	}
	name, _ := spec.BaseType(p)
	switch name {
	case "any":
		return true
	case "null":
		return v == nil
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		switch n := v.(type) {
		case int64:
			return true
		case float64:
			return n == float64(int64(n))
		}
	case "number":
		switch v.(type) {
		case int64, float64:
			return true
		}
	case "object":
		_, ok := v.(*delegation.Object)
		return ok
	case "duration":
		_, ok := delegation.ToDuration(v)
		return ok
	}
	return false
}

// Check matches v with the declared fields: it must be an object holding
// each of them, of its type (other keys are allowed); a field whose type
// admits null (`reason: string | null`, `any`) may be left out. Where
// some fields are declared without a type, only an object is checked:
// an answer that is not one is left to the program. The error
// says what is wrong and shows what came back.
func Check(fields []Field, v delegation.Value) error {
	if len(fields) == 0 {
		return nil
	}
	o, ok := v.(*delegation.Object)
	if !ok && partial(fields) {
		// Braces that leave some fields untyped describe the object an
		// answer gives when it gives one: an answer in prose is the
		// program's to judge (the library's ratchet asks a model whether
		// a prose verdict certifies), and reading a member of it is an
		// error of its own.
		return nil
	}
	if !ok {
		what := delegation.TypeName(v)
		if _, isText := v.(string); isText {
			what = "text"
		}
		return fmt.Errorf("got %s, not an object: %s", what, Show(v))
	}
	for _, f := range fields {
		x, has := o.Get(f.Name)
		switch {
		case !has && !Fits(f.Type, nil):
			return fmt.Errorf("the answer has no %q: %s", f.Name, Show(v))
		case !has:
		case !Fits(f.Type, x):
			return fmt.Errorf("its %q is %s, not %s", f.Name, Show(x), f.Type)
		}
	}
	return nil
}

// partial reports whether some of fields are declared without a type.
func partial(fields []Field) bool {
	for _, f := range fields {
		if f.Type == "" {
			return true
		}
	}
	return false
}

// Describe writes fields as declared: {accepted: boolean, notes: string}.
func Describe(fields []Field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name
		if f.Type != "" {
			parts[i] += ": " + f.Type
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Article names a value of declared type typ with its article, for
// messages: "an integer", "a string[]"; a union or a literal type is "a
// value of that type".
func Article(typ string) string { return spec.TypeArticle(typ) }

// Show is a value's JSON, cut to a readable length.
func Show(v delegation.Value) string {
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return delegation.TypeName(v)
	}
	s := string(raw)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
