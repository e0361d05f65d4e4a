package spec

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/diag"
	"gopkg.in/yaml.v3"
)

// knownTypes are the type names a Config entry or an input may declare,
// alone, as a list (`string[]`) or in a union (`string | null`). Other
// words, the loose spellings the run-time binder also reads (int, float,
// bool, str, list, dict, ...) included, are reported as unknown types with
// the canonical name to write instead: a spec says one thing one way.
var knownTypes = []string{"string", "integer", "number", "boolean", "object", "any", "duration", "null"}

// TypeNames are the declared type names, the one table of them: the
// loader refuses any other word, and the binder (package patterns) types
// values by these alone.
func TypeNames() []string { return append([]string(nil), knownTypes...) }

// BaseType returns the known type name a declared type word means
// ("Integer" is "integer"; no "[]" suffix, no union), and whether it is
// one: "int" is not (the loader refuses it, suggesting integer).
func BaseType(word string) (string, bool) {
	low := strings.ToLower(strings.TrimSpace(word))
	for _, k := range knownTypes {
		if low == k {
			return k, true
		}
	}
	return "", false
}

// typeAliases suggests the canonical name for a common other spelling.
var typeAliases = map[string]string{
	"int": "integer", "long": "integer", "float": "number", "double": "number",
	"bool": "boolean", "str": "string", "text": "string",
	"map": "object", "dict": "object", "list": "any[]", "array": "any[]",
}

// unknownType returns the first part of the declared type typ that is not
// a known type, with the name it probably means ("" when unsure); part is
// "" when every part is known.
func unknownType(typ string) (part, suggest string) {
	for _, p := range strings.Split(typ, "|") {
		base := strings.TrimSpace(p)
		if base == "" {
			continue // "" is no declared type; "a |" is a syntax matter
		}
		for strings.HasSuffix(base, "[]") {
			base = base[:len(base)-2]
		}
		low := strings.ToLower(base)
		if _, known := BaseType(low); known {
			continue
		}
		if a, ok := typeAliases[low]; ok {
			return base, a
		}
		best, bestD := "", 3
		for _, k := range knownTypes {
			if d := diag.EditDistance(low, k); d < bestD {
				best, bestD = k, d
			}
		}
		return base, best
	}
	return "", ""
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
	t := strings.ToLower(strings.TrimSpace(typ))
	switch {
	case t == "string":
		return unquote(raw), true
	case t == "integer" || t == "int":
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return raw, false
		}
		return n, true
	case t == "number" || t == "float":
		return decodeNumber(raw)
	case t == "boolean" || t == "bool":
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
	var v any
	if err := yaml.Unmarshal([]byte(pythonWords(raw)), &v); err != nil {
		return raw, false
	}
	return normalize(v), true
}

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
