package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
)

// A choice (delegation.Judgment.Options) is put to the model as a
// condition is, asking for one label instead of a boolean: the reply is
// {"reasoning": "...", "pick": "LABEL"}, its schema restricting pick to
// the labels. A reply whose pick is not exactly one of the labels (none,
// another text, a list of two, two objects picking differently) is no
// pick: it is asked again, and after JudgeOptions.Asks an unreadable
// verdict error (catchable, as for a condition). There is no default
// option and no fail-closed answer: a choice guards nothing by itself.

// pickSchema is the JSON Schema of the reply to a choice of labels.
func pickSchema(labels []string) json.RawMessage {
	enum, _ := json.Marshal(labels)
	return json.RawMessage(`{"type":"object","properties":{` +
		`"reasoning":{"type":"string","description":"one or two sentences: why this option fits the criteria best"},` +
		`"pick":{"type":"string","enum":` + string(enum) + `,"description":"the label of the one option picked"}},` +
		`"required":["reasoning","pick"],"additionalProperties":false}`)
}

// choiceRequest is req made to ask the model for the pick of choice j,
// and the reader of its reply (ask asks again while a reply is no pick).
func (m *ModelJudge) choiceRequest(req ChatRequest, j *delegation.Judgment) (ChatRequest, func(reply string) (delegation.Verdict, bool)) {
	req.System = m.choiceSystemPrompt()
	req.Messages = []Message{{Role: "user", Content: m.choiceUserPrompt(j)}}
	req.Schema = &Schema{Name: "pick", JSON: pickSchema(j.Options)}
	read := func(reply string) (delegation.Verdict, bool) {
		label, why, ok := ParsePick(reply, j.Options)
		return delegation.Verdict{Pick: label, Reasoning: why}, ok
	}
	return req, read
}

// choiceSystemPrompt tells the model its job for one choice.
func (m *ModelJudge) choiceSystemPrompt() string {
	var b strings.Builder
	b.WriteString("You pick exactly one option at a point of a running workflow")
	if m.opts.Pattern != "" {
		fmt.Fprintf(&b, " (the pattern %q)", m.opts.Pattern)
	}
	b.WriteString(". Weigh the options by the criteria given and the values given, which are the workflow's data at that point. ")
	b.WriteString(`Reply with a JSON object {"reasoning": "one or two sentences", "pick": "LABEL"}, where LABEL is exactly one of the option labels, as written.`)
	if len(m.opts.Invariants) > 0 {
		b.WriteString("\n\nThe pattern's invariants:")
		for _, inv := range m.opts.Invariants {
			b.WriteString("\n- " + strings.TrimSpace(inv))
		}
	}
	return b.String()
}

// choiceUserPrompt gives the criteria, the labels and the values of the
// names the criteria mention.
func (m *ModelJudge) choiceUserPrompt(j *delegation.Judgment) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Criteria: %s\n\nOptions (labels):\n", j.Cond.Text)
	for _, l := range j.Options {
		q, _ := json.Marshal(l)
		fmt.Fprintf(&b, "- %s\n", q)
	}
	m.writeValues(&b, j, "The criteria mention no bound values.")
	return b.String()
}

// ParsePick reads {"reasoning": ..., "pick": LABEL} from a reply, as
// ParseVerdict reads a verdict (code fences, prose around the object and
// a leading <think> block are tolerated), where LABEL must be exactly one
// of labels, up to spaces around it. A reply that is just a label, quoted
// or not, is read too. Two objects picking different labels, a pick that
// is a list, or a label not among labels, are no pick.
func ParsePick(content string, labels []string) (label, reasoning string, ok bool) {
	content, _ = splitThinking(content)
	is := func(s string) (string, bool) {
		s = strings.TrimSpace(s)
		for _, l := range labels {
			if s == l {
				return l, true
			}
		}
		return "", false
	}
	if l, ok := is(strings.Trim(strings.TrimSpace(content), "\"`")); ok && !strings.Contains(content, "{") {
		return l, "", true
	}
	found := false
	for i, tries := strings.IndexByte(content, '{'), 0; i >= 0 && tries < 64; tries++ {
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(content[i:]))
		if dec.Decode(&obj) == nil {
			if raw, has := obj["pick"]; has {
				s, isText := raw.(string)
				l, known := is(s)
				switch {
				case !isText || !known:
					return "", "", false // a list, a number, or no label
				case !found:
					r, _ := obj["reasoning"].(string)
					label, reasoning, found = l, strings.TrimSpace(r), true
				case l != label:
					return "", "", false
				}
			}
		}
		next := strings.IndexByte(content[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return label, reasoning, found
}
