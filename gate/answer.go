package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/shape"
)

// Answers are checked where they arrive (decided): whoever gives the
// answer (a terminal, prose answer, an MCP host, the journal on a
// resume), a gate takes the same value and refuses the same mistakes.
//
//   - ask_user: the answer is a string.
//   - gate whose question lists string `options`: the answer is
//     {"choice": OPTION}, as the terminal gives it for a line that is an
//     option. A bare string that is one of the options (prose answer
//     --value ship) is that object; anything else (another string, a choice
//     outside the options, an object with keys that are neither choice nor
//     a declared field) is refused, naming the options.
//   - gate whose question has `fields`, an object of field names and
//     type names (`fields: {approved: "boolean", notes: "string"}`): the
//     answer is an object with each of those fields, of its type, and no
//     other key (but choice, when the gate has options too).
//   - any other gate: any JSON value.

// AnswerError is an answer a gate refuses: it names what the gate takes.
type AnswerError struct {
	Kind string // ask_user or gate
	Msg  string
}

func (e *AnswerError) Error() string { return e.Kind + ": " + e.Msg }

// Shape checks answer (JSON) against a gate of kind asking question and
// returns the answer as the gate takes it (a bare option becomes
// {"choice": OPTION}), or an *AnswerError.
func Shape(kind string, question delegation.Value, answer json.RawMessage) (json.RawMessage, error) {
	v, err := delegation.FromJSON(answer)
	if err != nil {
		return nil, &AnswerError{kind, fmt.Sprintf("the answer is not JSON: %v", err)}
	}
	if kind == "ask_user" {
		if _, ok := v.(string); !ok {
			return nil, &AnswerError{kind, fmt.Sprintf("the answer is %s: ask_user asks for a string (--value TEXT)", delegation.TypeName(v))}
		}
		return answer, nil
	}
	opts := options(question)
	fields, ferr := declaredFields(question)
	if ferr != nil {
		return nil, &AnswerError{kind, ferr.Error()}
	}
	if len(opts) == 0 && fields == nil {
		return answer, nil
	}
	if s, ok := v.(string); ok && len(opts) > 0 && fields == nil {
		if !contains(opts, s) {
			return nil, &AnswerError{kind, fmt.Sprintf("%q is not one of the options %s", s, optionList(opts))}
		}
		b, _ := json.Marshal(map[string]string{"choice": s})
		return b, nil
	}
	o, ok := v.(*delegation.Object)
	if !ok {
		return nil, &AnswerError{kind, fmt.Sprintf("the answer is %s; %s", delegation.TypeName(v), want(opts, fields))}
	}
	if err := checkObject(o, opts, fields); err != nil {
		return nil, &AnswerError{kind, err.Error() + "; " + want(opts, fields)}
	}
	return answer, nil
}

func checkObject(o *delegation.Object, opts []string, fields map[string]string) error {
	if len(opts) > 0 {
		c, has := o.Get("choice")
		s, isText := c.(string)
		switch {
		case !has:
			return fmt.Errorf("the answer has no choice")
		case !isText || !contains(opts, s):
			return fmt.Errorf("choice %s is not one of the options %s", shortJSON(c), optionList(opts))
		}
	}
	for _, k := range o.Keys() {
		if _, ok := fields[k]; !ok && (k != "choice" || len(opts) == 0) {
			return fmt.Errorf("the answer has the key %q, which the gate does not ask for", k)
		}
	}
	for _, name := range sortedKeys(fields) {
		x, has := o.Get(name)
		if !has {
			return fmt.Errorf("the answer has no field %q", name)
		}
		if !shape.Fits(fields[name], x) {
			return fmt.Errorf("field %q is %s, not %s", name, shortJSON(x), fields[name])
		}
	}
	return nil
}

// want says what a gate takes.
func want(opts []string, fields map[string]string) string {
	var parts []string
	if len(opts) > 0 {
		parts = append(parts, fmt.Sprintf(`"choice": one of %s`, optionList(opts)))
	}
	for _, name := range sortedKeys(fields) {
		parts = append(parts, fmt.Sprintf("%q: %s", name, fields[name]))
	}
	s := "the gate takes {" + strings.Join(parts, ", ") + "}"
	if len(opts) > 0 && fields == nil {
		s += " (--value OPTION gives it)"
	}
	return s
}

// declaredFields reads a gate's `fields`: nil when it has none.
func declaredFields(q delegation.Value) (map[string]string, error) {
	o, ok := q.(*delegation.Object)
	if !ok {
		return nil, nil
	}
	f, has := o.Get("fields")
	if !has {
		return nil, nil
	}
	fo, ok := f.(*delegation.Object)
	if !ok {
		return nil, fmt.Errorf("the gate's fields is %s, not an object of field names and types ({approved: \"boolean\"})", delegation.TypeName(f))
	}
	out := map[string]string{}
	for _, k := range fo.Keys() {
		t, _ := fo.Get(k)
		s, ok := t.(string)
		if !ok || strings.TrimSpace(s) == "" || !shape.Known(strings.ToLower(s)) {
			return nil, fmt.Errorf("the gate's field %q has the type %s: write one of string, boolean, integer, number, object, any or T[]", k, shortJSON(t))
		}
		out[k] = s
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func optionList(opts []string) string {
	q := make([]string, len(opts))
	for i, o := range opts {
		q[i] = fmt.Sprintf("%q", o)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func shortJSON(v delegation.Value) string {
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return delegation.TypeName(v)
	}
	if len(raw) > 80 {
		return string(raw[:77]) + "..."
	}
	return string(raw)
}

// CheckRecorded checks val, an answer about to be recorded in the
// journal of run id (journal.Answer), against the gate it answers among
// the gates the run waits at (journal.Waiting; name: its path key, ""
// when the run waits at one gate only): it returns the answer as the
// gate will take it (Shape), or an *AnswerError naming what the gate
// takes; a gate already answered takes a new answer only with replace
// (the journal keeps both). A gate it cannot find is left to
// journal.Answer, which says why.
func CheckRecorded(gates []delegation.GateState, id, name string, val json.RawMessage, replace bool) (json.RawMessage, error) {
	var g *delegation.GateState
	for i := range gates {
		if gates[i].Path.Key() == name || name == "" && len(gates) == 1 {
			g = &gates[i]
		}
	}
	if g == nil {
		return val, nil
	}
	q, err := delegation.FromJSON(g.Question)
	if err != nil {
		return nil, fmt.Errorf("journal: the question of %s %s cannot be read: %v", g.Kind, g.Path.Key(), err)
	}
	shaped, err := Shape(g.Kind, q, val)
	if err != nil {
		var ae *AnswerError
		if errors.As(err, &ae) {
			ae.Msg = fmt.Sprintf("%s of run %s (%s) refuses the answer: %s", g.Path.Key(), id, g.Pos, ae.Msg)
		}
		return nil, err
	}
	if g.Answer != nil && !replace {
		return nil, &AnswerError{g.Kind, fmt.Sprintf("%s of run %s was already answered %s at %s: give --replace to replace that answer (the journal keeps both)",
			g.Path.Key(), id, g.Answer, g.Answered.UTC().Format(time.RFC3339))}
	}
	return shaped, nil
}

// Options are the string options a gate's question lists (nil when none).
func Options(question delegation.Value) []string { return options(question) }

// Fields is the fields a gate's question declares (`fields: {approved:
// "boolean"}`), by name: nil when it declares none, an error when they
// are not names and type names.
func Fields(question delegation.Value) (map[string]string, error) { return declaredFields(question) }
