// Package form decides the claims written in a fixed form ("contains
// `x`", "is empty", "has at most 3 items", "is_integer_between(0, 100)")
// from a value alone, with no model. Package claim decides a test's
// expectations by them, and package judge a program's natural-language
// condition about a bound name (`if items is empty:`), so that prose test
// and prose run decide the same sentence the same way. The forms are
// listed in package claim's documentation.
//
// Entry points: Decide, Result.
package form

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
)

// lit matches one literal: a code span, a quoted string, a JSON number or
// true/false/null.
const lit = "(`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'|-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?|true|false|null)"

// reLit matches one whole LIT.
var reLit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^` + lit + `$`) })

// num matches a number.
const num = `(-?\d+(?:\.\d+)?)`

var (
	reNot = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:does not|doesn't|do not|don't) (contain|include|equal|exist|match|have|start|begin|end)s?(?: (.*))?$`)
	})
	reContains = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:contains|includes)(?: the)?(?: exact)?(?: (?:phrase|text|string|substring|word|value|item|element|key))? ` + lit + `$`)
	})
	reModal = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:should|must|shall)( not)? (be|equal|contain|include|match|have|start|begin|end)\b(.*)$`)
	})
	reAffix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(starts|begins|ends) with(?: the)?(?: (?:phrase|text|string|word))? ` + lit + `$`)
	})
	reEquals = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:equals|==|is equal to|is exactly|is) ` + lit + `$`)
	})
	reEqualsJSON = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:equals|==|is equal to|is exactly) ([\[{].*)$`)
	})
	reNotEq    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(?:!=|is not equal to|is not) ` + lit + `$`) })
	rePresence = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(exists|is present|is set|is not null|is non-null|is not empty|is non-empty|is nonempty|not empty|non-empty|nonempty|is null|is not present|is absent|is missing|is empty|is unset)$`)
	})
	reCount = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:has|contains|is)(?: (exactly|at least|at most|more than|fewer than|less than|under|over|no more than|no fewer than|shorter than|longer than))? ` + num + ` (items?|elements?|entries|entry|keys?|words?|characters?|chars?|lines?|bullet points?)$`)
	})
	reLength = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:has )?(?:length|count|size|len)(?: is| of)?(?: (exactly|at least|at most|more than|fewer than|less than|==|>=|<=|>|<))? ` + num + `$`)
	})
	reCompare = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:is )?(at least|at most|greater than|more than|less than|fewer than|above|below|under|over|no more than|no less than|==|>=|<=|>|<|=) ` + num + `$`)
	})
	reBetween = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^is between ` + num + ` and ` + num + `$`) })
	reRangeFn = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:is_)?(integer|number)_between\(\s*` + num + `\s*,\s*` + num + `\s*\)$`)
	})
	reTypeFn = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:is_(integer|number|string|list|array|object|boolean|bool)(?:\(\))?|is an? (integer|number|string|list|array|object|boolean))$`)
	})
	reMatches = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?i)^matches(?: the)?(?: (?:regexp|regex|regular expression|pattern))? (/.*/|`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\")$")
	})
	reHasKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^has(?: an?| the)?(?: (?:key|field|property|member))? (` + "`[^`]*`" + `|"[^"]*")$|^has(?: an?| the)? (?:key|field|property|member) ([A-Za-z_][\w-]*)$`)
	})
	reOneOf = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(is not |isn't |not |is )?(?:any )?one of (.+)$`)
	})
	reWord  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][\w-]*$`) })
	reOrSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\s*,\s*(?:or\s+)?|\s+or\s+`) })
	reEvery = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:every|each|all)(?: of the)? (?:items?|elements?|entries|entry|values?)(?: of it)? (.+)$`)
	})
)

// Result is what a form decided.
type Result struct {
	Holds bool
	// Rule names the form: "contains", "equals", "presence", "count",
	// "compare", "range", "type", "matches", "has-key", "every", "one-of",
	// "affix".
	Rule string
	// Detail is what the rule observed beyond the value ("4 words").
	Detail string
	// Mismatch is set when the form needs a value of another kind than
	// the one it got ("a string, not a list" for a count of items, "a
	// string, not a number" for a comparison): Holds is then false, and
	// stays false under a negation ("does not have more than 5 items").
	// The claim is not decided false on its merits: a test fails it
	// whether it expects it or not, and a condition is an error (as
	// `score >= 0.5` is when score is text).
	Mismatch string
}

// Decide decides text, a claim without its subject ("contains `x`"),
// about v; ok is false when text is in no form.
func Decide(text string, v delegation.Value) (Result, bool) {
	return decideForm(text, v)
}

// decideForm decides text by the forms.
func decideForm(text string, v delegation.Value) (Result, bool) {
	if !mayStartForm(text) {
		return Result{}, false
	}
	if m := reModal().FindStringSubmatch(text); m != nil {
		// "should be 2", "must not contain `x`": the form the words say
		return decideForm(modal(m[1] != "", strings.ToLower(m[2]))+m[3], v)
	}
	if m := reNot().FindStringSubmatch(text); m != nil {
		verb := strings.ToLower(m[1])
		pos := map[string]string{"contain": "contains", "include": "includes", "equal": "equals", "exist": "exists", "match": "matches", "have": "has", "start": "starts", "begin": "begins", "end": "ends"}[verb]
		rest := m[2]
		if verb == "exist" {
			rest = ""
		}
		r, ok := decideForm(strings.TrimSpace(pos+" "+rest), v)
		r.Holds = !r.Holds && r.Mismatch == ""
		return r, ok
	}
	if m := reEvery().FindStringSubmatch(text); m != nil {
		return every(m[1], v)
	}
	if m := reContains().FindStringSubmatch(text); m != nil {
		want, _ := literal(m[1])
		if mm := containsMismatch(v); mm != "" {
			return Result{Rule: "contains", Detail: mm, Mismatch: mm}, true
		}
		return Result{Holds: contains(v, want), Rule: "contains"}, true
	}
	if m := reAffix().FindStringSubmatch(text); m != nil {
		want, _ := literal(m[2])
		return affix(strings.EqualFold(m[1], "ends"), want, v), true
	}
	if m := rePresence().FindStringSubmatch(text); m != nil {
		return presence(strings.ToLower(m[1]), v), true
	}
	if m := reNotEq().FindStringSubmatch(text); m != nil {
		want, _ := literal(m[1])
		if mm := textFor(v, want); mm != "" {
			return Result{Rule: "equals", Detail: mm, Mismatch: mm}, true
		}
		return Result{Holds: !delegation.Equal(v, want), Rule: "equals"}, true
	}
	if m := reEquals().FindStringSubmatch(text); m != nil {
		want, _ := literal(m[1])
		if mm := textFor(v, want); mm != "" {
			return Result{Rule: "equals", Detail: mm, Mismatch: mm}, true
		}
		return Result{Holds: delegation.Equal(v, want), Rule: "equals"}, true
	}
	if m := reOneOf().FindStringSubmatch(text); m != nil {
		if set, ok := oneOfSet(m[2]); ok {
			return oneOf(set, m[1] != "" && !strings.EqualFold(m[1], "is "), v), true
		}
	}
	if m := reEqualsJSON().FindStringSubmatch(text); m != nil {
		if want, err := delegation.FromJSON([]byte(m[1])); err == nil {
			return Result{Holds: delegation.Equal(v, want), Rule: "equals"}, true
		}
	}
	if r, ok := decideCount(text, v); ok {
		return r, true
	}
	if r, ok := decideNumber(text, v); ok {
		return r, true
	}
	if m := reMatches().FindStringSubmatch(text); m != nil {
		return matches(m[1], v)
	}
	if m := reHasKey().FindStringSubmatch(text); m != nil {
		var key delegation.Value = m[2] // has key NAME
		if m[1] != "" {
			key, _ = literal(m[1])
		}
		o, ok := v.(*delegation.Object)
		holds := false
		if ok {
			val, in := o.Get(delegation.Text(key))
			holds = in && val != nil
		}
		return Result{Holds: holds, Rule: "has-key"}, true
	}
	return Result{}, false
}

// oneOfSet reads the values of "one of A, B or C": each a LIT or a bare
// word (text). Decided: bare words count only in a list of two or more
// ("is one of low, high"), so that "is one of many" or "is one of the
// best" stays a sentence for the model, not a set of one word.
func oneOfSet(list string) ([]delegation.Value, bool) {
	parts := reOrSep().Split(strings.TrimSpace(list), -1)
	var set []delegation.Value
	bare := false
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if v, ok := literal(p); ok && reLit().MatchString(p) {
			set = append(set, v)
			continue
		}
		if !reWord().MatchString(p) {
			return nil, false
		}
		bare = true
		set = append(set, p)
	}
	if len(set) == 0 || bare && len(set) < 2 {
		return nil, false
	}
	return set, true
}

// oneOf decides whether v equals one of set (negated: none of it). A
// list or an object is one value of no such set (a Mismatch), and so is
// text that reads as a number or a boolean of the set, as for equals.
func oneOf(set []delegation.Value, negated bool, v delegation.Value) Result {
	switch v.(type) {
	case *delegation.List, *delegation.Object:
		mm := aType(v) + ", not one value"
		return Result{Rule: "one-of", Detail: mm, Mismatch: mm}
	}
	in := false
	for _, want := range set {
		if mm := textFor(v, want); mm != "" {
			return Result{Rule: "one-of", Detail: mm, Mismatch: mm}
		}
		in = in || delegation.Equal(v, want)
	}
	return Result{Holds: in != negated, Rule: "one-of"}
}

// mayStartForm reports whether text begins as some form does: with an
// ASCII letter or an operator's first character. Every form's expression
// is anchored at the start, so text that fails this is in no form, and is
// known to be without running them (a field item's ": a value" is read
// for a claim at every load).
func mayStartForm(text string) bool {
	if text == "" {
		return false
	}
	c := text[0] | 0x20
	return 'a' <= c && c <= 'z' || strings.IndexByte("=!<>", text[0]) >= 0
}

// textFor is the mismatch of a text v compared with a number or a
// boolean it reads as ("3" with 3, "true" with true), as `==` refuses
// it in a program (semantics.md 19): equal or not, the answer would
// rest on a type the value should not have. "" otherwise.
func textFor(v, want delegation.Value) string {
	s, isText := v.(string)
	if !isText {
		return ""
	}
	t := strings.TrimSpace(s)
	switch want.(type) {
	case int64, float64:
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return fmt.Sprintf("text %q, not a number", s)
		}
	case bool:
		if t == "true" || t == "false" {
			return fmt.Sprintf("text %q, not a boolean", s)
		}
	}
	return ""
}

// Equals reads a claim that its subject equals one literal, or does not
// (`equals "high"`, `is 3`, `is not null`), and gives the literal; ok is
// false for any other claim. It reads no subject: a checker uses it to
// find a claim the subject's declared type never satisfies.
func Equals(text string) (want delegation.Value, negated, ok bool) {
	text = strings.TrimSpace(text)
	if m := reNot().FindStringSubmatch(text); m != nil && strings.EqualFold(m[1], "equal") {
		w, _, ok := Equals("equals " + m[2])
		return w, true, ok
	}
	if m := reNotEq().FindStringSubmatch(text); m != nil {
		want, ok = literal(m[1])
		return want, true, ok
	}
	if m := reEquals().FindStringSubmatch(text); m != nil {
		want, ok = literal(m[1])
		return want, false, ok
	}
	return nil, false, false
}

// Contains reads a claim that its subject contains one literal, or does
// not (`contains 2`, `does not include "x"`), and gives the literal; ok
// is false for any other claim. Like Equals it reads no subject: a
// checker uses it to find an item a list output's declared element type
// never holds.
func Contains(text string) (want delegation.Value, negated, ok bool) {
	text = strings.TrimSpace(text)
	if m := reNot().FindStringSubmatch(text); m != nil {
		switch strings.ToLower(m[1]) {
		case "contain", "include":
			w, _, ok := Contains("contains " + m[2])
			return w, true, ok
		}
		return nil, false, false
	}
	if m := reContains().FindStringSubmatch(text); m != nil {
		want, ok = literal(m[1])
		return want, false, ok
	}
	return nil, false, false
}

// OneOf reads a claim that its subject is one of a set of values, or is
// none of them (`is one of "low", "high"`, `is not one of 1, 2`), and
// gives the set; ok is false for any other claim.
func OneOf(text string) (set []delegation.Value, negated, ok bool) {
	m := reOneOf().FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, false, false
	}
	set, ok = oneOfSet(m[2])
	return set, m[1] != "" && !strings.EqualFold(m[1], "is "), ok
}

// literal decodes a LIT.
func literal(s string) (delegation.Value, bool) {
	switch {
	case strings.HasPrefix(s, "`"):
		return s[1 : len(s)-1], true
	case strings.HasPrefix(s, "'"):
		return s[1 : len(s)-1], true
	}
	v, err := delegation.FromJSON([]byte(s))
	return v, err == nil
}

// containsMismatch says why the contains form cannot read v, or "".
// Decided: a number or a boolean contains nothing, so `count contains
// "1"` of 12 is neither true nor false (as "has 2 items" of a string is
// not), rather than a test of its digits: an expectation that passes on
// digits it happens to share, or a count read as text, is a wrong PASS.
func containsMismatch(v delegation.Value) string {
	switch v.(type) {
	case int64, float64, bool:
		return aType(v) + ", not text, a list or an object"
	}
	return ""
}

// contains is the contains form.
func contains(v, want delegation.Value) bool {
	ws, wantText := want.(string)
	switch v := v.(type) {
	case string:
		return strings.Contains(v, delegation.Text(want))
	case *delegation.List:
		for _, e := range v.Elems() {
			if delegation.Equal(e, want) {
				return true
			}
			if s, ok := e.(string); ok && wantText && strings.Contains(s, ws) {
				return true
			}
		}
		return false
	case *delegation.Object:
		_, ok := v.Get(delegation.Text(want))
		return ok
	case nil:
		return false
	}
	return strings.Contains(delegation.Text(v), delegation.Text(want))
}

// presence is the presence forms.
func presence(form string, v delegation.Value) Result {
	empty := v == nil
	switch v := v.(type) {
	case string:
		empty = v == ""
	case *delegation.List:
		empty = v.Len() == 0
	case *delegation.Object:
		empty = v.Len() == 0
	}
	r := Result{Rule: "presence"}
	switch form {
	case "exists", "is present", "is set", "is not null", "is non-null":
		r.Holds = v != nil
	case "is not empty", "is non-empty", "is nonempty", "not empty", "non-empty", "nonempty":
		r.Holds = !empty
	case "is empty":
		r.Holds = empty
	default: // null, absent, missing, unset
		r.Holds = v == nil
	}
	return r
}

// decideCount is the count and length forms.
func decideCount(text string, v delegation.Value) (Result, bool) {
	var op, n, unit string
	if m := reCount().FindStringSubmatch(text); m != nil {
		op, n, unit = m[1], m[2], m[3]
	} else if m := reLength().FindStringSubmatch(text); m != nil {
		op, n, unit = m[1], m[2], "items"
	} else {
		return Result{}, false
	}
	want, _ := strconv.ParseFloat(n, 64)
	got, what, ok := measure(v, strings.ToLower(unit))
	r := Result{Rule: "count", Detail: what}
	if !ok {
		r.Mismatch = what
		return r, true
	}
	r.Holds = compare(strings.ToLower(op), float64(got), want)
	return r, true
}

// measure counts v in unit; ok is false when v has no such count.
func measure(v delegation.Value, unit string) (n int, what string, ok bool) {
	unit = strings.TrimSuffix(unit, "s")
	switch {
	case strings.HasPrefix(unit, "item") || strings.HasPrefix(unit, "element") || strings.HasPrefix(unit, "entr") || strings.HasPrefix(unit, "key"):
		switch v := v.(type) {
		case *delegation.List:
			n = v.Len()
		case *delegation.Object:
			n = v.Len()
		default:
			return 0, aType(v) + ", not a list", false
		}
		return n, plural(n, "item"), true
	case unit == "bullet point":
		return 0, "", false
	}
	s, isText := v.(string)
	if !isText {
		return 0, aType(v) + ", not text", false
	}
	switch {
	case strings.HasPrefix(unit, "word"):
		n = len(strings.Fields(s))
		return n, plural(n, "word"), true
	case strings.HasPrefix(unit, "line"):
		n = len(strings.Split(strings.TrimRight(s, "\n"), "\n"))
		if s == "" {
			n = 0
		}
		return n, plural(n, "line"), true
	}
	n = utf8.RuneCountInString(s)
	return n, plural(n, "character"), true
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// compare applies a comparison word to got and want; "" is equality.
func compare(op string, got, want float64) bool {
	switch op {
	case "", "exactly", "==", "=":
		return got == want
	case "at least", ">=", "no fewer than", "no less than":
		return got >= want
	case "at most", "<=", "no more than":
		return got <= want
	case "more than", "greater than", "above", "over", "longer than", ">":
		return got > want
	}
	return got < want // less than, fewer than, below, under, shorter than, <
}

// decideNumber is the numeric comparison, range and type forms.
func decideNumber(text string, v delegation.Value) (Result, bool) {
	f, isNum := number(v)
	mismatch := ""
	if !isNum {
		mismatch = aType(v) + ", not a number"
	}
	if m := reCompare().FindStringSubmatch(text); m != nil {
		want, _ := strconv.ParseFloat(m[2], 64)
		return Result{Holds: isNum && compare(strings.ToLower(m[1]), f, want), Rule: "compare", Detail: mismatch, Mismatch: mismatch}, true
	}
	if m := reBetween().FindStringSubmatch(text); m != nil {
		lo, _ := strconv.ParseFloat(m[1], 64)
		hi, _ := strconv.ParseFloat(m[2], 64)
		return Result{Holds: isNum && lo <= f && f <= hi, Rule: "range", Detail: mismatch, Mismatch: mismatch}, true
	}
	if m := reRangeFn().FindStringSubmatch(text); m != nil {
		lo, _ := strconv.ParseFloat(m[2], 64)
		hi, _ := strconv.ParseFloat(m[3], 64)
		ok := isNum && lo <= f && f <= hi
		if strings.EqualFold(m[1], "integer") {
			ok = ok && f == math.Trunc(f)
		}
		return Result{Holds: ok, Rule: "range", Detail: mismatch, Mismatch: mismatch}, true
	}
	if m := reTypeFn().FindStringSubmatch(text); m != nil {
		t := strings.ToLower(m[1] + m[2])
		return Result{Holds: hasType(v, t), Rule: "type", Detail: aType(v)}, true
	}
	return Result{}, false
}

// number reads v as a number (integers and floats; not numeric text).
func number(v delegation.Value) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}

// hasType is the type forms.
func hasType(v delegation.Value, t string) bool {
	switch t {
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f)
	case "number":
		_, ok := number(v)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "list", "array":
		_, ok := v.(*delegation.List)
		return ok
	case "object":
		_, ok := v.(*delegation.Object)
		return ok
	}
	_, ok := v.(bool)
	return ok
}

// modal is the claim's verb without should, must or shall: "is" for
// be, "contains" for contain, "is not" and "does not contain" negated.
func modal(negated bool, verb string) string {
	if verb == "be" {
		if negated {
			return "is not"
		}
		return "is"
	}
	if negated {
		return "does not " + verb
	}
	return map[string]string{"equal": "equals", "contain": "contains", "include": "includes", "match": "matches", "have": "has", "start": "starts", "begin": "begins", "end": "ends"}[verb]
}

// affix is the form "starts with LIT" ("begins with"), or "ends with
// LIT" when end is set: of text, compared as written (case included).
// Decided: only text starts or ends with something; a list, an object,
// a number or null is a Mismatch (whose first element, or whose digits,
// was meant is not known).
func affix(end bool, want, v delegation.Value) Result {
	s, ok := v.(string)
	if !ok {
		mm := aType(v) + ", not text"
		return Result{Rule: "affix", Detail: mm, Mismatch: mm}
	}
	w := delegation.Text(want)
	if end {
		return Result{Holds: strings.HasSuffix(s, w), Rule: "affix"}
	}
	return Result{Holds: strings.HasPrefix(s, w), Rule: "affix"}
}

// matches is the regular-expression form.
func matches(pat string, v delegation.Value) (Result, bool) {
	var expr string
	switch {
	case strings.HasPrefix(pat, "/"):
		expr = pat[1 : len(pat)-1]
	case strings.HasPrefix(pat, "`"):
		expr = pat[1 : len(pat)-1]
	default:
		if err := json.Unmarshal([]byte(pat), &expr); err != nil {
			return Result{}, false
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Result{}, false // not a regexp: let the model read the sentence
	}
	s, ok := v.(string)
	if !ok {
		s = delegation.Text(v)
	}
	return Result{Holds: re.MatchString(s), Rule: "matches"}, true
}

// every applies a claim to each element of a list.
func every(sub string, v delegation.Value) (Result, bool) {
	sub = strings.TrimSpace(sub)
	if rest, ok := strings.CutPrefix(sub, "are "); ok {
		sub = "is " + rest
	} else if rest, ok := strings.CutPrefix(sub, "have "); ok {
		sub = "has " + rest
	} else if rest, ok := strings.CutPrefix(sub, "contain "); ok {
		sub = "contains " + rest
	} else if rest, ok := strings.CutPrefix(sub, "match "); ok {
		sub = "matches " + rest
	}
	l, isList := v.(*delegation.List)
	if !isList {
		if _, ok := decideForm(sub, nil); !ok {
			return Result{}, false
		}
		what := aType(v) + ", not a list"
		return Result{Holds: false, Rule: "every", Detail: what, Mismatch: what}, true
	}
	for i, e := range l.Elems() {
		r, ok := decideForm(sub, e)
		if !ok {
			return Result{}, false
		}
		if r.Mismatch != "" {
			what := fmt.Sprintf("item %d is %s", i, r.Mismatch)
			return Result{Holds: false, Rule: "every", Detail: what, Mismatch: what}, true
		}
		if !r.Holds {
			return Result{Holds: false, Rule: "every", Detail: fmt.Sprintf("item %d does not hold", i)}, true
		}
	}
	if l.Len() == 0 {
		if _, ok := decideForm(sub, nil); !ok {
			return Result{}, false
		}
	}
	return Result{Holds: true, Rule: "every"}, true
}

// aType names v's type with its article: "null", "a string", "an object".
func aType(v delegation.Value) string {
	t := delegation.TypeName(v)
	switch {
	case t == "null":
		return t
	case strings.ContainsRune("aeiou", rune(t[0])):
		return "an " + t
	}
	return "a " + t
}
