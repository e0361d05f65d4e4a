package llm

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// systemPrompt tells the model its job for one judgment.
func (m *ModelJudge) systemPrompt(j *delegation.Judgment) string {
	var b strings.Builder
	b.WriteString("You judge whether one condition holds at a point of a running workflow")
	if m.opts.Pattern != "" {
		fmt.Fprintf(&b, " (the pattern %q)", m.opts.Pattern)
	}
	b.WriteString(". Read the condition literally and decide from the values given, which are the workflow's data at that point. ")
	b.WriteString(`Reply with a JSON object {"reasoning": "one or two sentences", "holds": true or false}.`)
	if len(m.opts.Invariants) > 0 {
		b.WriteString("\n\nThe pattern's invariants:")
		for _, inv := range m.opts.Invariants {
			b.WriteString("\n- " + strings.TrimSpace(inv))
		}
	}
	if j.FailClosed {
		fmt.Fprintf(&b, "\n\nThis condition guards a step with side effects: when the values do not clearly settle it, answer holds=%v so the step does not proceed.", j.SafeHolds())
	}
	return b.String()
}

// userPrompt gives the condition and the values of the names it mentions.
func (m *ModelJudge) userPrompt(j *delegation.Judgment) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Condition: %s\n", j.Cond.Text)
	if s := j.Cond.Says; s != nil {
		fmt.Fprintf(&b, "\n`%s` is the rubric (criteria to apply, or an evaluation already made); decide by it whether `%s` is %s",
			s.Criterion, s.Subject, predicateWords(j.Cond.Text, s))
		if s.Negated {
			b.WriteString(" (the condition holds when it is NOT)")
		}
		b.WriteString(".\n")
	}
	m.writeValues(&b, j, "The condition mentions no bound values.")
	return b.String()
}

// writeValues gives the values of the names j mentions, or none when it
// mentions none.
func (m *ModelJudge) writeValues(b *strings.Builder, j *delegation.Judgment, none string) {
	if j.Values == nil || j.Values.Len() == 0 {
		b.WriteString("\n" + none + "\n")
		return
	}
	b.WriteString("\nValues of the names it mentions (JSON):\n")
	for _, k := range j.Values.Keys() {
		v, _ := j.Values.Get(k)
		fmt.Fprintf(b, "\n%s = %s\n", k, m.showValue(v))
	}
}

// showValue is v as JSON (compact: the indentation a person would want
// is tokens a model is paid for), truncated past MaxValueBytes with a
// note saying so.
func (m *ModelJudge) showValue(v delegation.Value) string {
	raw, err := delegation.ToJSON(v)
	if err != nil {
		raw = fmt.Appendf(nil, "%q", fmt.Sprint(v))
	}
	s, cut := truncateJSON(string(raw), m.opts.MaxValueBytes)
	if cut {
		s += fmt.Sprintf("\n[truncated: the first %d of %d bytes shown]", len(s), len(raw))
	}
	return s
}

// predicateWords is the predicate as the condition writes it ("a
// failure", not the bare "failure"), without a leading "not".
func predicateWords(text string, s *syntax.Says) string {
	i := strings.LastIndex(text, " is ")
	if i < 0 {
		return s.Predicate
	}
	p := strings.TrimSpace(text[i+len(" is "):])
	p = strings.TrimSpace(strings.TrimPrefix(p, "not "))
	if p == "" {
		return s.Predicate
	}
	return p
}
