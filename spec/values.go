package spec

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/internal/didyoumean"
	"gopkg.in/yaml.v3"
)

// knownTypes are the type names a Config entry or an input may declare,
// alone, as a list (`string[]`) or in a union (`string | null`).
var knownTypes = []string{"string", "integer", "number", "boolean", "object", "any", "duration", "null"}

// TypeNames are the declared type names, the one table of them: the
// loader writes every declared type with these (typeAliases mapped), and
// the binder (package runhost) types values by these alone.
func TypeNames() []string { return append([]string(nil), knownTypes...) }

// typeAliases are the other spellings people write for a declared type.
// Decided: they mean the type they name (`int` is integer, `list` any[]),
// and the loader stores the canonical name; any other word is an unknown
// type, an error with the name it is closest to.
var typeAliases = map[string]string{
	"int": "integer", "long": "integer", "float": "number", "double": "number",
	"bool": "boolean", "str": "string", "text": "string",
	"map": "object", "dict": "object", "list": "any[]", "array": "any[]",
}

// BaseType returns the known type name a declared type word means
// ("Integer" and "int" are "integer"; no "[]" suffix, no union), and
// whether it is one.
func BaseType(word string) (string, bool) {
	low := strings.ToLower(strings.TrimSpace(word))
	for _, k := range knownTypes {
		if low == k {
			return k, true
		}
	}
	if a, ok := typeAliases[low]; ok && !strings.HasSuffix(a, "[]") {
		return a, true
	}
	return "", false
}

// canonicalType writes the declared type typ with the project's names
// ("int[] | None" is not one; "Int | null" is "integer | null", "list"
// "any[]"). part is the first word that is no type, with the name it
// probably means ("" when unsure); canon is then typ as written.
func canonicalType(typ string) (canon, part, suggest string) {
	if strings.TrimSpace(typ) == "" {
		return "", "", ""
	}
	var out []string
	for p := range strings.SplitSeq(typ, "|") {
		base := strings.TrimSpace(p)
		if base == "" {
			continue // "a |" is a syntax matter
		}
		suffix := ""
		for strings.HasSuffix(base, "[]") {
			base, suffix = base[:len(base)-2], suffix+"[]"
		}
		low := strings.ToLower(base)
		if k, known := BaseType(low); known {
			out = append(out, k+suffix)
			continue
		}
		if a, ok := typeAliases[low]; ok {
			out = append(out, a+suffix)
			continue
		}
		return typ, base, nearType(low)
	}
	return strings.Join(out, " | "), "", ""
}

// WordsType reads a type that is a set of words, the quoted strings a
// value may be (`"low" | "high"`, also with single quotes), written with
// double quotes and " | " between them; "" when typ is anything else (a
// word holding a quote or a backslash is not read). Decided: an item
// typed so, `priority` ("low" | "high"), is of that type, checked where
// the value arrives as any declared type is, rather than untyped text
// whose description starts with the words.
func WordsType(typ string) string {
	var out []string
	for p := range strings.SplitSeq(typ, "|") {
		p = strings.TrimSpace(p)
		if len(p) < 3 || !(p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') || strings.ContainsAny(p[1:len(p)-1], "\"'\\") {
			return ""
		}
		out = append(out, `"`+p[1:len(p)-1]+`"`)
	}
	return strings.Join(out, " | ")
}

// nearType is the type name word is a likely slip for, or "".
func nearType(word string) string {
	cands := append([]string(nil), knownTypes...)
	for a := range typeAliases {
		if len(a) > 3 { // "int" is too short to be a slip for
			cands = append(cands, a)
		}
	}
	best := didyoumean.Closest(word, cands, 2)
	if k, ok := typeAliases[best]; ok {
		return k
	}
	return best
}

// unknownTypeMessage says that the type word part is unknown, suggesting
// what it probably means.
func unknownTypeMessage(part, suggest string) string {
	msg := "unknown type " + quote(part)
	if suggest != "" {
		return msg + "; did you mean " + suggest + "?"
	}
	return msg + "; the types are " + strings.Join(knownTypes, ", ") + " (and T[] for a list)"
}

// inferType is the declared type a default's decoded value v (raw as
// written) implies, for an entry that states none: 3 integer, 0.5 number,
// true boolean, "x" string, 2s duration, a list any[], an object object;
// "" for anything else (a bare word keeps the entry untyped).
func inferType(v any, raw string) string {
	raw = strings.TrimSpace(raw)
	switch v := v.(type) {
	case int64:
		return "integer"
	case float64:
		return "number"
	case bool:
		if raw == "true" || raw == "false" {
			return "boolean"
		}
	case []any:
		return "any[]"
	case map[string]any:
		return "object"
	case string:
		if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
			return "string"
		}
		if isDurationLiteral(v) {
			return "duration"
		}
	}
	return ""
}

// isDurationLiteral reports whether s is written as a duration with its
// unit (2s, 500ms, 1m30s), not a bare number.
func isDurationLiteral(s string) bool {
	d, err := time.ParseDuration(s)
	return err == nil && d >= 0 && strings.IndexAny(s, "hmsµn") > 0
}

// normalize turns yaml.v3's decoded values into the loader's value set:
// int64, float64, string, bool, nil, []any, map[string]any.
func normalize(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case uint64:
		if v <= 1<<63-1 {
			return int64(v)
		}
		return float64(v)
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
		return v
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			ks, _ := yamlKey(k)
			m[ks] = normalize(x)
		}
		return m
	}
	return v
}

func yamlKey(k any) (string, bool) {
	if s, ok := k.(string); ok {
		return s, true
	}
	b, err := json.Marshal(k)
	return string(b), err == nil
}

// isNone reports whether a raw default means "no default".
func isNone(raw string) bool {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "none", "":
		return true
	}
	return false
}

// isPythonLiteral reports whether raw looks like a Python repr: single
// quoted keys or strings in a {...} or [...] literal, or None/True/False.
func isPythonLiteral(raw string) bool {
	switch raw {
	case "None", "True", "False":
		return true
	}
	return strings.ContainsAny(raw, "{[") && strings.Contains(raw, "'")
}

// decodeValue decodes a default written in a spec according to the
// declared type. ok is false when raw does not fit the type; v is then the
// raw text.
func decodeValue(typ, raw string) (v any, ok bool) {
	raw = strings.TrimSpace(raw)
	if w := WordsType(typ); w != "" {
		word := unquote(raw)
		return word, slices.Contains(strings.Split(w, " | "), strconv.Quote(word))
	}
	t := strings.ToLower(strings.TrimSpace(typ))
	switch {
	case t == "string":
		return unquote(raw), true
	case t == "integer":
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return raw, false
		}
		return n, true
	case t == "number":
		return decodeNumber(raw)
	case t == "boolean":
		switch strings.ToLower(raw) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
		return raw, false
	case t == "duration":
		v, _ := decodeAny(raw, false)
		return v, isDuration(raw)
	case strings.HasSuffix(t, "[]"):
		return decodeList(raw)
	}
	return decodeAny(raw, t == "object")
}

// isDuration reports whether raw is a duration as a run reads one: Go
// duration text ("500ms", "1m30s") or a number of seconds, not negative
// (delegation.ToDuration).
func isDuration(raw string) bool {
	raw = unquote(raw)
	if d, err := time.ParseDuration(raw); err == nil {
		return d >= 0
	}
	f, err := strconv.ParseFloat(raw, 64)
	return err == nil && f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) && f < float64(math.MaxInt64/int64(time.Second))
}

func decodeNumber(raw string) (any, bool) {
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		return f, true
	}
	return raw, false
}

// decodeList decodes a list default; the brackets may be left out
// ({'a': 1}, {'a': 2} is a list of two objects).
func decodeList(raw string) (any, bool) {
	if !strings.HasPrefix(raw, "[") {
		raw = "[" + raw + "]"
	}
	v, ok := decodeFlow(raw)
	if _, isList := v.([]any); !ok || !isList {
		return raw, false
	}
	return v, true
}

// decodeAny decodes a scalar, object or list written as JSON, YAML flow or
// a Python literal; any other text is a string. For an object type, a
// non-object is not ok.
func decodeAny(raw string, object bool) (any, bool) {
	if strings.HasPrefix(raw, "{") || strings.HasPrefix(raw, "[") || isPythonLiteral(raw) {
		v, ok := decodeFlow(raw)
		if !ok {
			return raw, false
		}
		_, isObj := v.(map[string]any)
		return v, isObj || !object
	}
	if object {
		return raw, raw == "null"
	}
	if v, ok := decodeNumber(raw); ok {
		return v, true
	}
	switch raw {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	return unquote(raw), true
}

// decodeFlow decodes a YAML flow value (a superset of JSON that also reads
// single-quoted strings), after turning Python's None/True/False into
// null/true/false outside quotes.
func decodeFlow(raw string) (any, bool) {
	text := pythonWords(raw)
	if v, ok := plainFlow(text); ok {
		return v, true
	}
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return raw, false
	}
	return normalize(v), true
}

// plainFlow decodes, without yaml.v3 (whose parser costs more than the
// rest of a small spec's loading), a flow value of the plainest kind:
// lists and objects of quoted strings without escapes, integers, true,
// false, null, with quoted keys, on one line of printable ASCII. Anything else (a plain
// word, a float, an escape, a comment, a repeated key, which yaml.v3
// refuses) is not ok, and left to yaml.v3; where it is ok, v is what
// yaml.v3 and normalize give (TestPlainFlowIsYAML).
func plainFlow(s string) (v any, ok bool) {
	if s == "" || s[0] != '[' && s[0] != '{' || strings.ContainsAny(s, "\\#") {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return nil, false // yaml.v3 refuses some characters, folds lines
		}
	}
	f := flowReader{s: s}
	v, ok = f.value(0)
	f.space()
	return v, ok && f.i == len(s)
}

// flowReader reads a plain flow value (plainFlow) from s at i.
type flowReader struct {
	s string
	i int
}

// after reads what follows an element of a list or an object: a comma
// (done false) or the closing byte (done true); anything else is not
// plain flow (ok false).
func (f *flowReader) after(closing byte) (done, ok bool) {
	f.space()
	if f.i >= len(f.s) {
		return false, false
	}
	f.i++
	switch f.s[f.i-1] {
	case closing:
		return true, true
	case ',':
		return false, true
	}
	return false, false
}

func (f *flowReader) space() {
	for f.i < len(f.s) && f.s[f.i] == ' ' {
		f.i++
	}
}

// value reads one flow value: a list, an object, a quoted string, or a
// scalar word.
func (f *flowReader) value(depth int) (any, bool) {
	f.space()
	if f.i >= len(f.s) || depth > maxFlowDepth {
		return nil, false
	}
	switch c := f.s[f.i]; {
	case c == '[':
		return f.list(depth)
	case c == '{':
		return f.object(depth)
	case c == '"' || c == '\'':
		return f.quoted()
	}
	return f.scalar()
}

// list reads `[a, b]`, at its '['.
func (f *flowReader) list(depth int) (any, bool) {
	f.i++
	out := []any{}
	f.space()
	if f.i < len(f.s) && f.s[f.i] == ']' {
		f.i++
		return out, true
	}
	for {
		x, ok := f.value(depth + 1)
		if !ok {
			return nil, false
		}
		out = append(out, x)
		done, ok := f.after(']')
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
	}
}

// object reads `{"k": v, ...}` (keys quoted, each once), at its '{'.
func (f *flowReader) object(depth int) (any, bool) {
	f.i++
	out := map[string]any{}
	f.space()
	if f.i < len(f.s) && f.s[f.i] == '}' {
		f.i++
		return out, true
	}
	for {
		f.space()
		k, ok := f.quoted()
		if !ok || f.i+1 >= len(f.s) || f.s[f.i] != ':' || f.s[f.i+1] != ' ' {
			return nil, false
		}
		if _, dup := out[k]; dup {
			return nil, false
		}
		f.i++
		x, ok := f.value(depth + 1)
		if !ok {
			return nil, false
		}
		out[k] = x
		done, ok := f.after('}')
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
	}
}

// scalar reads a word: true, false, null or a decimal integer of at most
// 18 digits without leading zeros.
func (f *flowReader) scalar() (any, bool) {
	start := f.i
	for f.i < len(f.s) && (f.s[f.i] >= 'a' && f.s[f.i] <= 'z' || f.s[f.i] >= '0' && f.s[f.i] <= '9' || f.s[f.i] == '-') {
		f.i++
	}
	switch w := f.s[start:f.i]; w {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	default:
		digits := strings.TrimPrefix(w, "-")
		if digits == "" || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 || strings.Trim(digits, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.ParseInt(w, 10, 64)
		return n, err == nil
	}
}

// quoted reads a quoted string without escapes (” in single quotes is
// one: not read).
func (f *flowReader) quoted() (string, bool) {
	if f.i >= len(f.s) || f.s[f.i] != '"' && f.s[f.i] != '\'' {
		return "", false
	}
	q := f.s[f.i]
	end := strings.IndexByte(f.s[f.i+1:], q)
	if end < 0 {
		return "", false
	}
	str := f.s[f.i+1 : f.i+1+end]
	f.i += end + 2
	if q == '\'' && f.i < len(f.s) && f.s[f.i] == '\'' {
		return "", false
	}
	return str, true
}

// maxFlowDepth bounds plainFlow's nesting (yaml.v3 reads deeper ones).
const maxFlowDepth = 20

// pythonWords replaces the bare words None, True and False outside quotes.
func pythonWords(s string) string {
	if !strings.Contains(s, "None") && !strings.Contains(s, "True") && !strings.Contains(s, "False") {
		return s
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case isWordStart(s, i):
			if w, repl := pythonWordAt(s, i); w != "" {
				b.WriteString(repl)
				i += len(w) - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordStart(s string, i int) bool {
	return i == 0 || !isIdentByte(s[i-1])
}

func pythonWordAt(s string, i int) (word, repl string) {
	for _, p := range [...][2]string{{"None", "null"}, {"True", "true"}, {"False", "false"}} {
		w := p[0]
		if strings.HasPrefix(s[i:], w) && (i+len(w) == len(s) || !isIdentByte(s[i+len(w)])) {
			return w, p[1]
		}
	}
	return "", ""
}

// unquote strips one pair of matching "..." or '...' quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		if s[0] == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
		}
		return s[1 : len(s)-1]
	}
	return s
}

// jsonText renders v as compact JSON for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isIdent reports whether s is an identifier: a letter or _ followed by
// letters, digits and _.
func isIdent(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// ConfigValue types a config value written in a ### Patterns instance
// (PatternInstance.Config, `config: {max_rounds: 2}`) by the pattern's
// declared type typ, as a run types it: text or its JSON form is decoded
// as a default is. ok is false when the value does not fit a scalar type
// (integer, number, boolean, duration); a value of another type is
// returned as it is.
func ConfigValue(typ string, v any) (any, bool) {
	t, _ := BaseType(typ)
	if strings.Contains(typ, "|") || strings.HasSuffix(strings.TrimSpace(typ), "[]") {
		t = ""
	}
	switch t {
	case "integer", "number", "boolean", "duration":
	default:
		return v, true
	}
	raw, isText := v.(string)
	if !isText {
		b, err := json.Marshal(v)
		if err != nil {
			return v, false
		}
		raw = string(b)
	}
	return decodeValue(t, raw)
}

// TypeArticle is "an integer", "a string[]": a value of the declared type
// typ with its article, for the fix of a message; a union or a literal
// type is "a value of that type".
func TypeArticle(typ string) string {
	typ = strings.TrimSpace(typ)
	if w := WordsType(typ); w != "" {
		return "one of " + strings.ReplaceAll(w, " | ", ", ")
	}
	if typ == "" || strings.ContainsAny(typ, "|\"'") {
		return "a value of that type"
	}
	switch strings.ToLower(typ)[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + typ
	}
	return "a " + typ
}
